import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolAccessDeniedError, ToolNotFoundError } from '../../../core/errors/index.ts';
import { defineTool, ToolRegistry } from '../../../core/tools/index.ts';
import { ToolMutabilityWarning } from '../errors.ts';
import { sandboxTools } from './sandbox-tools.ts';

function tool(
  name: string,
  mutability: 'read-only' | 'mutable',
  allowedRoles: readonly string[] | '*' = '*',
  allowedPhases: readonly string[] | '*' = '*',
) {
  return defineTool({ name, description: name, input: z.object({}), mutability, allowedRoles, allowedPhases, execute: async () => name });
}

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

describe('ToolRegistry scoping (3_MCP-RISK-202)', () => {
  it('resolve returns a tool only for an allowed role and phase', () => {
    const registry = new ToolRegistry();
    registry.register(tool('execute_query', 'read-only', ['developer', 'reviewer'], ['discovery', 'execution']));
    registry.register(tool('commit_transaction', 'mutable', ['developer'], ['execution']));
    expect(registry.resolve('execute_query', 'reviewer', 'discovery').name).toBe('execute_query');
    expect(registry.resolve('commit_transaction', 'developer', 'execution').name).toBe('commit_transaction');
    expect(registry.list('reviewer', 'discovery').map((t) => t.name)).toEqual(['execute_query']);
    expect(registry.list('developer', 'execution').map((t) => t.name)).toEqual(['execute_query', 'commit_transaction']);
  });

  it('failing the role or the phase throws ToolAccessDeniedError naming which', () => {
    const registry = new ToolRegistry();
    registry.register(tool('commit_transaction', 'mutable', ['developer'], ['execution']));
    const byRole = (() => {
      try {
        registry.resolve('commit_transaction', 'reviewer', 'execution');
      } catch (error) {
        return error;
      }
    })();
    expect(byRole).toBeInstanceOf(ToolAccessDeniedError);
    expect(byRole).toMatchObject({ reason: 'role', code: 'TOOL_ACCESS_DENIED' });
    expect(() => registry.resolve('commit_transaction', 'developer', 'discovery')).toThrow(ToolAccessDeniedError);
    expect(() => registry.resolve('commit_transaction', 'developer', 'discovery')).toThrow(/not allowed in the "discovery" phase/);
    expect(() => registry.resolve('commit_transaction', 'reviewer', 'discovery')).toThrow(ToolAccessDeniedError);
    expect(() => registry.resolve('drop_everything', 'developer', 'execution')).toThrow(ToolNotFoundError);
  });

  it('a read-only tool is not replaced by a mutable one without forceOverride', () => {
    const registry = new ToolRegistry();
    registry.register(tool('execute_query', 'read-only'));
    expect(registry.register(tool('execute_query', 'mutable'))).toBe(false);
    expect(registry.resolve('execute_query', 'any', 'any').mutability).toBe('read-only');
    expect(registry.register(tool('execute_query', 'mutable'), { forceOverride: true })).toBe(true);
    expect(registry.resolve('execute_query', 'any', 'any').mutability).toBe('mutable');
    // Mutable → read-only and same-mutability replacements need no override.
    expect(registry.register(tool('execute_query', 'read-only'))).toBe(true);
    expect(registry.has('execute_query')).toBe(true);
    expect(registry.all()).toHaveLength(1);
  });

  it('registering a mutable tool over a read-only one logs a ToolMutabilityWarning through pino and records it', () => {
    const { logger, lines } = capturingLogger();
    const recorded: ToolMutabilityWarning[] = [];
    const registry = new ToolRegistry({ logger, onWarning: (warning) => recorded.push(warning) });
    registry.register(tool('inspect_state', 'read-only'));
    registry.register(tool('inspect_state', 'mutable'));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toBeInstanceOf(ToolMutabilityWarning);
    expect(recorded[0]!.toolName).toBe('inspect_state');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        code: 'TOOL_MUTABILITY_WARNING',
        tool: 'inspect_state',
        msg: expect.stringMatching(/forceOverride/),
      }),
    ]);
    registry.register(tool('inspect_state', 'mutable'), { forceOverride: true });
    expect(recorded).toHaveLength(1);
    expect(lines).toHaveLength(1);
  });

  it('the registry works without a logger or a sink', () => {
    const registry = new ToolRegistry();
    registry.register(tool('run_profiler', 'read-only'));
    expect(registry.register(tool('run_profiler', 'mutable'))).toBe(false);
  });

  it('the sandbox introspection tools default to read-only; only the transaction tools are mutable', () => {
    const tools = sandboxTools(() => {
      throw new Error('not called');
    });
    const registry = new ToolRegistry();
    for (const definition of tools) registry.register(definition);
    for (const name of ['inspect_state', 'execute_query', 'run_profiler'])
      expect(registry.resolve(name, 'user', 'main').mutability).toBe('read-only');
    for (const name of ['execute_write', 'commit_transaction', 'rollback_transaction'])
      expect(registry.resolve(name, 'user', 'main').mutability).toBe('mutable');
    expect(registry.resolve('commit_transaction', 'user', 'main').risk).toBe('high');
  });
});
