import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_AUDIT_EVENT_TYPES } from '../../src/core/audit/index.ts';
import { TOOL_CALL_TRANSITIONS } from '../../src/core/runtime/tool-call-lifecycle.ts';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = sourceFiles(join(root, 'src')).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
const LIFECYCLE = 'src/core/runtime/tool-call-lifecycle.ts';
const REPOSITORY = 'src/core/runtime/session-repository.ts';
const CALL_EVENT_TYPES = new Set(
  Object.values(TOOL_CALL_TRANSITIONS)
    .flatMap((to) => Object.values(to).flat())
    .filter((type) => type !== null),
);

describe('one place for the tool-call lifecycle', () => {
  it('only the session repository holds the SQL that writes tool_calls', () => {
    const writers = files
      .filter(({ text }) => /(insertInto|updateTable|deleteFrom)\(\s*'tool_calls'|\bupdate tool_calls\b/.test(text))
      .map((f) => f.path);
    expect(writers).toEqual([REPOSITORY]);
  });

  it('only the lifecycle module calls the repository functions that insert calls or change their status', () => {
    const callers = files
      .filter(({ path, text }) => path !== REPOSITORY && /\b(insertToolCalls|transitionToolCalls)\(/.test(text))
      .map((f) => f.path);
    expect(callers).toEqual([LIFECYCLE]);
  });

  it('no file appends a tool-call audit event itself: they go through transition()', () => {
    const direct = files.filter(({ text }) =>
      [...text.matchAll(/\.(record|append)\(([^;]*?)\)\s*;/gs)].some((call) =>
        [...call[2]!.matchAll(/type:\s*'([a-z_]+)'/g)].some((type) => CALL_EVENT_TYPES.has(type[1]! as never)),
      ),
    );
    expect(direct.map((f) => f.path)).toEqual([]);
  });

  it('every audit event a transition names is a known core event type, and final statuses lead nowhere', () => {
    for (const type of CALL_EVENT_TYPES) expect(CORE_AUDIT_EVENT_TYPES).toContain(type);
    for (const final of ['rejected', 'blocked', 'executed', 'failed', 'expired', 'unknown'] as const)
      expect(TOOL_CALL_TRANSITIONS[final]).toEqual({});
    expect(Object.keys(TOOL_CALL_TRANSITIONS.approved)).toContain('executing');
    expect(Object.keys(TOOL_CALL_TRANSITIONS.proposed)).not.toContain('executing');
  });
});
