import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { instrumentRuntime } from '../../src/app/instrument-runtime.ts';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { createMetrics } from '../../src/core/telemetry/index.ts';
import { createServer } from '../../src/server/index.ts';
import { createLedgerAgent, createLedgerModel, sqliteTestStore } from '../../src/testing/index.ts';

const user = { userId: 7, username: 'john_doe', roles: ['user'] };
const approver = { userId: 8, username: 'alice', roles: ['approver'] };

function sample(text: string, metric: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${metric} `));
  return line ? Number(line.slice(metric.length + 1)) : 0;
}

describe('GET /metrics', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serve(token?: string) {
    const handle = await sqliteTestStore.create();
    cleanups.push(() => handle.dispose());
    const metrics = createMetrics({ processMetrics: false });
    const created = await createRuntime({
      store: handle.store,
      agents: [createLedgerAgent({ reads: 0, transfers: [] })],
      model: () => createLedgerModel(),
      metrics,
    });
    const runtime = instrumentRuntime(created, metrics);
    cleanups.push(() => runtime.close());
    const app = await createServer({
      runtime,
      store: handle.store,
      cookieKey: randomBytes(32),
      metrics: { render: metrics.render, contentType: metrics.contentType, ...(token ? { token } : {}) },
    });
    cleanups.push(() => app.close());
    return { app, runtime };
  }

  it('counts turns by outcome, approval waits, store transactions, audit appends and live-event fan-out after a round trip', async () => {
    const { app, runtime } = await serve();
    const session = await runtime.startSession({ agent: 'ledger', identity: user });
    const paused = await runtime.send(session.id, 'pay bob 30', user);
    expect(paused.interrupt?.type).toBe('approval');
    await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, approver);

    // Audit events are sealed into the chain in the background; scrape until the sealer has run.
    let text = '';
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/plain');
      text = response.body;
      if (sample(text, 'opsgate_audit_append_seconds_count') > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(sample(text, 'opsgate_turns_total{status="waiting"}')).toBe(1);
    expect(sample(text, 'opsgate_turns_total{status="completed"}')).toBe(1);
    expect(sample(text, 'opsgate_approval_wait_seconds_count')).toBe(1);
    expect(sample(text, 'opsgate_store_transaction_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'opsgate_audit_append_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'opsgate_live_event_lag_seconds_count')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE opsgate_tool_calls_total counter');
    expect(text).toContain('# TYPE opsgate_store_conflicts_total counter');
  });

  it('a failed turn counts as error', async () => {
    const { app, runtime } = await serve();
    await expect(runtime.send('no-such-session', 'hello', user)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(text, 'opsgate_turns_total{status="error"}')).toBe(1);
  });

  it('with a token, a scrape without the bearer token gets METRICS_TOKEN_REQUIRED', async () => {
    const { app } = await serve('scrape-secret');
    const anonymous = await app.inject({ method: 'GET', url: '/metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 'METRICS_TOKEN_REQUIRED' });
    const wrong = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    const right = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secret' } });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('opsgate_turns_total');
  });
});
