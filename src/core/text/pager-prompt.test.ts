import { describe, expect, it } from 'vitest';
import { detectPagerPrompt } from './pager-prompt.ts';

describe('detectPagerPrompt', () => {
  it.each([
    ['less at the end', 'commit abc\nAuthor: x\n\u001b[7m(END)\u001b[27m\u001b[K'],
    ['more', 'line\n--More--'],
    ['more with percentage', 'line\n\u001b[7m--More--(42%)\u001b[27m'],
    ['less command prompt', 'line one\nline two\n:'],
    ['less -M lines', 'x\nlines 1-42'],
    ['systemctl lines', 'x\nlines 1-23/23 (END)'],
    ['man', ' Manual page ls(1) line 1 (press h for help or q to quit)'],
  ])('AR-07 detects a pager prompt: %s', (_name, tail) => {
    expect(detectPagerPrompt(tail)).toBe(true);
  });

  it.each([
    ['a finished command', 'total 4\ndrwxr-xr-x 2 root root 4096 .\n'],
    ['a shell prompt', 'done\nroot@host:~# '],
    ['(END) in the middle of output', 'the word (END) here\nmore text\n'],
    ['a colon at the end of a sentence', 'Enter the value:'],
    ['an empty cursor line', 'output\n'],
  ])('AR-07 does not mistake %s for a pager', (_name, tail) => {
    expect(detectPagerPrompt(tail)).toBe(false);
  });

  it('AR-07 reads the cursor line after carriage-return overwrites', () => {
    expect(detectPagerPrompt('x\nprogress 10%\r:')).toBe(true);
    expect(detectPagerPrompt('x\n:\rdone')).toBe(false);
  });
});
