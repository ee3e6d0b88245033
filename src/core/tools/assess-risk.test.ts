import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assessToolRisk } from './assess-risk.ts';
import { defineTool } from './define-tool.ts';

const base = { description: 'x', input: z.object({ name: z.string() }), execute: async () => 'ok' };

describe('assessToolRisk', () => {
  it('falls back to the static risk with a generic reason', () => {
    const tool = defineTool({ ...base, name: 'restart', mutability: 'mutable', risk: 'high' });
    expect(assessToolRisk(tool, { name: 'a' })).toEqual({ level: 'high', reason: 'restart changes the system' });
  });

  it('uses the tool scorer with the arguments and the preview', () => {
    const tool = defineTool({
      ...base,
      name: 'drop',
      mutability: 'mutable',
      assessRisk: (input: { name: string }, preview) => ({
        level: 'critical',
        reason: `drops ${input.name}: ${preview?.summary ?? 'none'}`,
      }),
    });
    expect(assessToolRisk(tool, { name: 'orders' }, { kind: 'sql', summary: '8 rows' })).toEqual({
      level: 'critical',
      reason: 'drops orders: 8 rows',
    });
  });
});
