import { describe, expect, it } from 'vitest';
import { closeOpenHeredocs, shieldLineStartBackslashes } from './bash-source-fixes.ts';

describe('closeOpenHeredocs', () => {
  it('adds the closing line bash would assume at the end of the input', () => {
    expect(closeOpenHeredocs('python3 <<EOF')).toBe('python3 <<EOF\nEOF');
    expect(closeOpenHeredocs("bash <<'X'\nrm -rf /")).toBe("bash <<'X'\nrm -rf /\nX");
  });

  it('leaves a heredoc that is closed, also by a tab-indented line after <<-', () => {
    expect(closeOpenHeredocs('cat <<EOF\nhi\nEOF')).toBe('cat <<EOF\nhi\nEOF');
    expect(closeOpenHeredocs('cat <<-EOF\n\thi\n\tEOF\necho done')).toBe('cat <<-EOF\n\thi\n\tEOF\necho done');
  });

  it('does not take a line that merely starts with the delimiter for the closing one', () => {
    expect(closeOpenHeredocs('cat <<EOF\nEOFX')).toBe('cat <<EOF\nEOFX\nEOF');
  });
});

describe('shieldLineStartBackslashes', () => {
  it('puts a blank before a backslash that starts a line, in a heredoc body too', () => {
    expect(shieldLineStartBackslashes('echo hi\n\\rm -rf /')).toBe('echo hi\n \\rm -rf /');
    expect(shieldLineStartBackslashes('bash <<EOF\n\\rm -rf /etc\nEOF')).toBe('bash <<EOF\n \\rm -rf /etc\nEOF');
  });

  it('leaves other backslashes alone', () => {
    expect(shieldLineStartBackslashes('printf "a\\n" \\\n  | wc -l')).toBe('printf "a\\n" \\\n  | wc -l');
  });
});
