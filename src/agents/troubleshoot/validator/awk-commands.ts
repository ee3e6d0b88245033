/** What an awk program hands to a shell: the literal command strings, and whether any is computed. */
export interface AwkShellCommands {
  /** Command lines written out as string literals: `system("date")`, `print | "sort -n"`, `"hostname" | getline h`. */
  readonly literal: readonly string[];
  /** True when some command is computed (`system(cmd)`, `cmd | getline`, `print | $2`) or a co-process (`|&`): it cannot be checked. */
  readonly dynamic: boolean;
}

type Token = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'pipe' | 'other'; readonly value: string };

/** After these, a `/` starts a regular expression, not a division. */
const REGEX_MAY_FOLLOW = /^(?:|[(,{;!~&|?:=\n]|[^\w)\]$.]\s*)$/;

function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < code.length) {
    const char = code[index]!;
    if (char === '"') {
      let value = '';
      index++;
      while (index < code.length && code[index] !== '"') {
        if (code[index] === '\\' && index + 1 < code.length) {
          const next = code[index + 1]!;
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          index += 2;
        } else value += code[index++];
      }
      index++;
      tokens.push({ kind: 'string', value });
    } else if (char === '/' && REGEX_MAY_FOLLOW.test(lastSignificant(tokens))) {
      index++;
      while (index < code.length && code[index] !== '/') index += code[index] === '\\' ? 2 : 1;
      index++;
      // Stryker disable next-line ObjectLiteral,StringLiteral: only the regex token's place in the list is read, never its kind or value
      tokens.push({ kind: 'other', value: 're' });
    } else if (char === '|') {
      if (code[index + 1] === '|') {
        tokens.push({ kind: 'other', value: '||' });
        index += 2;
      } else {
        tokens.push({ kind: 'pipe', value: code[index + 1] === '&' ? '|&' : '|' });
        index += code[index + 1] === '&' ? 2 : 1;
      }
    } else if (/\s/.test(char) && char !== '\n') index++;
    else {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(code.slice(index))?.[0];
      tokens.push({ kind: 'other', value: word ?? char });
      index += word?.length ?? 1;
    }
  }
  return tokens;
}

function lastSignificant(tokens: readonly Token[]): string {
  const last = tokens[tokens.length - 1];
  if (!last) return '';
  return last.kind === 'string' ? 'x' : last.value === 're' ? 'x' : /^\w/.test(last.value) && last.value !== 'in' ? 'x' : last.value;
}

/**
 * The shell commands an awk program runs (`system`, pipes to and from commands), decoded from its
 * string literals so they can be checked like any other command line. Regular expressions and `||`
 * are not pipes.
 */
export function awkShellCommands(code: string): AwkShellCommands {
  const tokens = tokenize(code);
  const literal: string[] = [];
  let dynamic = false;
  tokens.forEach((token, index) => {
    const next = tokens[index + 1];
    const previous = tokens[index - 1];
    if (token.kind === 'other' && token.value === 'system' && next?.value === '(') {
      const argument = tokens[index + 2];
      if (argument?.kind === 'string' && tokens[index + 3]?.value === ')') literal.push(argument.value);
      else dynamic = true;
    } else if (token.kind === 'pipe') {
      // A co-process (`|&`) talks both ways: the GTFOBins reverse shell; never decoded.
      if (token.value === '|&') dynamic = true;
      else if (next?.value === 'getline' && previous?.kind === 'string') literal.push(previous.value);
      else if (next?.kind === 'string' && tokens[index + 2]?.value !== 'getline') literal.push(next.value);
      else dynamic = true;
    }
  });
  return { literal, dynamic };
}
