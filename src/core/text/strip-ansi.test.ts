import stripAnsiPackage from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { createAnsiStripper, stripAnsi } from './strip-ansi.ts';

const ESC = '\u001b';

describe('stripAnsi', () => {
  it('AR-09 strips ANSI colour codes and keeps the text', () => {
    expect(stripAnsi(`${ESC}[1;31merror${ESC}[0m: disk ${ESC}[38;5;208mfull${ESC}[m`)).toBe('error: disk full');
    expect(stripAnsi(`${ESC}[38;2;255;0;0mred${ESC}[39m`)).toBe('red');
  });

  it('AR-09 strips cursor moves, erase and private modes', () => {
    expect(stripAnsi(`${ESC}[2J${ESC}[H${ESC}[?25l${ESC}[10;20Hhello${ESC}[K${ESC}[?1049h`)).toBe('hello');
  });

  it('AR-09 strips OSC titles (BEL and ST) and keeps OSC 8 hyperlink text', () => {
    expect(stripAnsi(`${ESC}]0;user@host: ~${ESC}\\$ ${ESC}]2;title\u0007ls`)).toBe('$ ls');
    expect(stripAnsi(`see ${ESC}]8;;https://example.com/a${ESC}\\the docs${ESC}]8;;${ESC}\\ now`)).toBe('see the docs now');
  });

  it('AR-09 strips single-character escapes, charset selection, DCS and C1 sequences, keeping other C1 controls as text', () => {
    expect(stripAnsi(`${ESC}7a${ESC}8b${ESC}(Bc${ESC}=d${ESC}>e`)).toBe('abcde');
    expect(stripAnsi(`x${ESC}Ptmux;payload${ESC}\\y`)).toBe('xy');
    expect(stripAnsi('a\u009b31mred\u009b0m b\u009d0;t\u009cc\u0085d')).toBe('ared bc\u0085d');
  });

  it('AR-09 keeps text bytes faithfully: newlines, carriage returns, tabs, unicode', () => {
    const text = 'line 1\r\nline\t2 — ünïcødé 🚀\r\n';
    expect(stripAnsi(text)).toBe(text);
    expect(stripAnsi(`${ESC}[32m${text}${ESC}[0m`)).toBe(text);
  });

  it('AR-09 drops a lone ESC before plain text without eating the text', () => {
    expect(stripAnsi(`a${ESC}\nb`)).toBe('a\nb');
  });

  it('AR-09 aborts an unfinished CSI at a control character and keeps that character', () => {
    expect(stripAnsi(`a${ESC}[31\nb`)).toBe('a\nb');
  });

  it('agrees with the strip-ansi package on common terminal output', () => {
    const samples = [
      `${ESC}[01;34mdir${ESC}[0m  ${ESC}[01;32mexec${ESC}[0m\r\n`,
      `${ESC}[?2004h${ESC}]0;root@box: /srv${ESC}\\root@box:/srv# ${ESC}[?2004l\r`,
      `● nginx.service ${ESC}[0;1;32mactive (running)${ESC}[0m since Mon`,
    ];
    for (const sample of samples) expect(stripAnsi(sample)).toBe(stripAnsiPackage(sample));
  });

  it('returns the same string when there is nothing to strip', () => {
    const text = 'plain text';
    expect(stripAnsi(text)).toBe(text);
  });
});

describe('createAnsiStripper', () => {
  it('AR-09 strips escape sequences split across chunk boundaries', () => {
    const input = `${ESC}[1;31merror${ESC}[0m ${ESC}]8;;http://x${ESC}\\link${ESC}]8;;\u0007 done\r\n`;
    for (let cut = 0; cut <= input.length; cut++) {
      const stripper = createAnsiStripper();
      const out = stripper.push(input.slice(0, cut)) + stripper.push(input.slice(cut)) + stripper.flush();
      expect(out, `cut at ${cut}`).toBe('error link done\r\n');
    }
  });

  it('AR-09 gives the same result one character at a time', () => {
    const input = `a${ESC}[38;5;1mb${ESC}(0c${ESC}Pq#0${ESC}\\d\u009b1me`;
    const stripper = createAnsiStripper();
    let out = '';
    for (const char of input) out += stripper.push(char);
    expect(out).toBe(stripAnsi(input));
    expect(out).toBe('abcde');
  });
});

describe('one-shot and streaming agree', () => {
  it('AR-09 the regex path, the state machine (one char per chunk) and random chunking give the same text', () => {
    const alphabet = [
      '\u001b',
      '[',
      ']',
      '\\',
      'P',
      '_',
      '\u0007',
      '\u0018',
      '\u009b',
      '\u009c',
      '\u009d',
      '\u0090',
      '\u0085',
      'm',
      '3',
      ';',
      '(',
      ' ',
      'a',
      'Z',
      '\n',
      '\r',
      '\u007f',
    ];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 3000; round++) {
      let input = '';
      const length = random(24);
      for (let i = 0; i < length; i++) input += alphabet[random(alphabet.length)];
      const oneShot = stripAnsi(input);
      const perChar = createAnsiStripper();
      let streamed = '';
      for (const char of input) streamed += perChar.push(char);
      expect(streamed, JSON.stringify(input)).toBe(oneShot);
      const cut = random(input.length + 1);
      const split = createAnsiStripper();
      expect(split.push(input.slice(0, cut)) + split.push(input.slice(cut)), JSON.stringify(input)).toBe(oneShot);
    }
  });
});
