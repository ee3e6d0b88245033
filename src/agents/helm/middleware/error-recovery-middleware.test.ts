import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import { createTestToolContext } from '../../../testing/tool-context.ts';
import { HelmErrors } from '../errors.ts';
import { ErrorRecoveryMiddleware } from './error-recovery-middleware.ts';

const tool = (name: string, mutability: 'read-only' | 'mutable') =>
  defineTool({ name, description: name, input: z.object({}).passthrough(), mutability, execute: async () => ({}) });

describe('ErrorRecoveryMiddleware', () => {
  it('retries a read-only tool on a transient error, 3 attempts with exponential backoff', async () => {
    const retries: Array<{ attempt: number; delayMs: number }> = [];
    const middleware = new ErrorRecoveryMiddleware({ initialDelayMs: 5, maxDelayMs: 100, onRetry: (info) => retries.push(info) });
    let attempts = 0;
    const result = await middleware.wrap(
      { tool: tool('helm_search_charts', 'read-only'), input: {}, context: createTestToolContext() },
      async () => {
        attempts++;
        if (attempts < 3) throw HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail: 'connection refused' });
        return 'ok';
      },
    );
    expect(result).toBe('ok');
    expect(attempts).toBe(3);
    expect(retries.map((r) => r.delayMs)).toEqual([5, 10]);
  });

  it('gives up after 3 attempts, and never retries final errors or mutable tools', async () => {
    const middleware = new ErrorRecoveryMiddleware({ initialDelayMs: 1 });
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw HelmErrors.HELM_CLUSTER_UNREACHABLE({ detail: 'down' });
    };
    await expect(
      middleware.wrap({ tool: tool('kubernetes_get_cluster_info', 'read-only'), input: {}, context: createTestToolContext() }, failing),
    ).rejects.toMatchObject({ code: 'HELM_CLUSTER_UNREACHABLE' });
    expect(attempts).toBe(3);
    attempts = 0;
    await expect(
      middleware.wrap({ tool: tool('helm_install_chart', 'mutable'), input: {}, context: createTestToolContext() }, failing),
    ).rejects.toThrow();
    expect(attempts).toBe(1);
    attempts = 0;
    await expect(
      middleware.wrap({ tool: tool('helm_get_release_status', 'read-only'), input: {}, context: createTestToolContext() }, async () => {
        attempts++;
        throw HelmErrors.HELM_RELEASE_NOT_FOUND({ release: 'x', namespace: 'y' });
      }),
    ).rejects.toMatchObject({ code: 'HELM_RELEASE_NOT_FOUND' });
    expect(attempts).toBe(1);
  });
});
