import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolAccessDeniedError, ToolMutabilityWarning, ToolNotFoundError } from '../errors/index.ts';
import { defineTool } from './define-tool.ts';
import { ToolRegistry } from './tool-registry.ts';

const readTool = defineTool({
  name: 'inspect_state',
  description: 'read',
  input: z.object({}),
  mutability: 'read-only',
  allowedRoles: ['developer'],
  allowedPhases: ['investigate'],
  execute: async () => 1,
});
const writeTool = defineTool({
  name: 'inspect_state',
  description: 'write',
  input: z.object({}),
  mutability: 'mutable',
  execute: async () => 2,
});

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('ToolRegistry', () => {
  it('resolve: unknown name throws ToolNotFoundError', () => {
    expect(() => new ToolRegistry().resolve('nope', 'developer', 'investigate')).toThrow(ToolNotFoundError);
  });

  it('resolve: a role outside allowedRoles throws ToolAccessDeniedError (role)', () => {
    const registry = new ToolRegistry();
    registry.register(readTool);
    const error = (() => {
      try {
        registry.resolve('inspect_state', 'reviewer', 'investigate');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ToolAccessDeniedError);
    expect((error as ToolAccessDeniedError).reason).toBe('role');
  });

  it('resolve: a phase outside allowedPhases throws ToolAccessDeniedError (phase), even for an allowed role', () => {
    const registry = new ToolRegistry();
    registry.register(readTool);
    expect(() => registry.resolve('inspect_state', 'developer', 'act')).toThrow(
      expect.objectContaining({ reason: 'phase', code: 'TOOL_ACCESS_DENIED' }) as Error,
    );
  });

  it('resolve: role and phase allowed returns the tool; list offers only what role × phase allows', () => {
    const registry = new ToolRegistry();
    registry.register(readTool);
    registry.register(
      defineTool({ name: 'anywhere', description: 'x', input: z.object({}), mutability: 'read-only', execute: async () => 0 }),
    );
    expect(registry.resolve('inspect_state', 'developer', 'investigate')).toBe(readTool);
    expect(registry.list('developer', 'investigate').map((t) => t.name)).toEqual(['inspect_state', 'anywhere']);
    expect(registry.list('reviewer', 'investigate').map((t) => t.name)).toEqual(['anywhere']);
    expect(registry.has('anywhere')).toBe(true);
    expect(registry.all()).toHaveLength(2);
  });

  it('keeps the read-only tool and logs a ToolMutabilityWarning through pino when a mutable one would replace it', () => {
    const { logger, lines } = capturingLogger();
    const warnings: ToolMutabilityWarning[] = [];
    const registry = new ToolRegistry({ logger, onWarning: (w) => warnings.push(w) });
    registry.register(readTool);
    expect(registry.register(writeTool)).toBe(false);
    expect(registry.resolve('inspect_state', 'developer', 'investigate').mutability).toBe('read-only');
    expect(warnings[0]).toBeInstanceOf(ToolMutabilityWarning);
    expect(lines[0]).toMatchObject({ level: 40, code: 'TOOL_MUTABILITY_WARNING', tool: 'inspect_state' });
  });

  it('forceOverride replaces a read-only tool with a mutable one without a warning', () => {
    const warnings: ToolMutabilityWarning[] = [];
    const registry = new ToolRegistry({ onWarning: (w) => warnings.push(w) });
    registry.register(readTool);
    expect(registry.register(writeTool, { forceOverride: true })).toBe(true);
    expect(registry.resolve('inspect_state', 'anyone', 'any').mutability).toBe('mutable');
    expect(warnings).toHaveLength(0);
  });

  it('replacing read-only with read-only, or mutable with anything, needs no override', () => {
    const registry = new ToolRegistry();
    registry.register(writeTool);
    expect(registry.register(readTool)).toBe(true);
    expect(registry.register({ ...readTool, description: 'newer' })).toBe(true);
    expect(registry.resolve('inspect_state', 'developer', 'investigate').description).toBe('newer');
  });
});
