import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags.ts';

const words = (...texts: string[]) => texts.map((text) => ({ text, static: true }));
const rm = { aliases: { r: 'recursive', R: 'recursive', recursive: 'recursive', f: 'force', force: 'force' } };

describe('parseFlags', () => {
  it.each([['-rf'], ['-fr'], ['-r', '-f'], ['--recursive', '--force'], ['-R', '--force'], ['--recur', '--forc']])(
    'AR-01 normalises %j to recursive + force',
    (...args) => {
      const parsed = parseFlags(words(...args, '/'), rm);
      expect([...parsed.flags].sort()).toEqual(['force', 'recursive']);
      expect(parsed.operands.map((o) => o.text)).toEqual(['/']);
    },
  );

  it('AR-01 stops at -- and reads option values', () => {
    const parsed = parseFlags(words('-n', '5', '--lines=7', '--', '-rf'), { withValue: ['n', 'lines'] });
    expect(parsed.values.get('n')?.text).toBe('5');
    expect(parsed.values.get('lines')?.text).toBe('7');
    expect(parsed.operands.map((o) => o.text)).toEqual(['-rf']);
  });

  it('AR-01 abbreviates only long options: -c is its own flag, not the start of --command', () => {
    const parsed = parseFlags(words('-c', 'id'), { aliases: { command: 'command' }, withValue: ['command'] });
    expect(parsed.values.has('command')).toBe(false);
    expect([...parsed.flags]).toEqual(['c']);
    expect(parsed.operands.map((o) => o.text)).toEqual(['id']);
  });
});
