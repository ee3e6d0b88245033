import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/app/tracing.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createPrometheusObserver, type RuntimeObserver } from '../../src/core/telemetry/index.ts';
import { createLedgerAgent, createLedgerModel, sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const alice = { userId: 1, username: 'alice', roles: ['approver'] };

describe('seeing it run', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function roundTrip(observer?: RuntimeObserver): Promise<{ runtime: Runtime; testStore: TestStore }> {
    const testStore = await sqliteTestStore.create();
    cleanups.push(() => testStore.dispose());
    const runtime = await createRuntime({
      store: testStore.store,
      agents: [createLedgerAgent({ reads: 0, transfers: [] })],
      model: () => createLedgerModel(),
      ...(observer ? { observer } : {}),
    });
    cleanups.push(() => runtime.close());
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const paused = await runtime.send(session.id, 'pay bob 30', alice);
    await runtime.decide(session.id, { type: 'approve', callId: paused.interrupt!.callId }, alice);
    return { runtime, testStore };
  }

  it('Prometheus metrics count turns, calls by status, approval waits, store transactions, audit appends and live-event lag', async () => {
    const metrics = createPrometheusObserver();
    const { testStore } = await roundTrip(metrics);
    await new AuditLog(testStore.store).seal();
    const text = await metrics.render();
    expect(text).toContain('opsgate_turns_total{agent="ledger",status="waiting"} 1');
    expect(text).toContain('opsgate_turns_total{agent="ledger",status="completed"} 1');
    expect(text).toContain('opsgate_tool_calls_total{tool="transfer",status="proposed"} 1');
    expect(text).toContain('opsgate_tool_calls_total{tool="transfer",status="executing"} 1');
    expect(text).toContain('opsgate_tool_calls_total{tool="transfer",status="executed"} 1');
    expect(text).toContain('opsgate_tool_calls_total{tool="read_balance",status="executed"} 1');
    expect(text).toMatch(/opsgate_approval_wait_seconds_count 1\b/);
    expect(text).toMatch(/opsgate_store_transaction_seconds_count [1-9]/);
    expect(text).toMatch(/opsgate_live_event_fanout_lag_seconds_count\{relayed="false"\} [1-9]/);
    expect(text).toContain('# TYPE opsgate_audit_append_seconds histogram');
    expect(text).toContain('opsgate_process_cpu_user_seconds_total');
  });

  it('spans follow the GenAI conventions: one chat span per model step and an execute_tool span per execution', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({}, new SimpleSpanProcessor({ exporter }))!;
    cleanups.push(() => tracing.shutdown());
    await roundTrip();
    const spans = exporter.getFinishedSpans();
    const chat = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chat.length).toBeGreaterThanOrEqual(3);
    expect(chat[0]!.name).toBe(`chat ${String(chat[0]!.attributes['gen_ai.request.model'])}`);
    expect(chat[0]!.attributes['gen_ai.provider.name']).toBeTypeOf('string');
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.name).sort()).toEqual(['execute_tool read_balance', 'execute_tool transfer']);
    const transfer = tools.find((span) => span.name === 'execute_tool transfer')!;
    expect(transfer.attributes).toMatchObject({
      'gen_ai.tool.name': 'transfer',
      'gen_ai.tool.type': 'function',
      'opsgate.tool.mutability': 'mutable',
    });
    expect(transfer.attributes['gen_ai.tool.call.id']).toBeTypeOf('string');
  });

  it('exports spans over OTLP/HTTP only when an endpoint is configured', async () => {
    expect(startTracing({})).toBeUndefined();
    const received: Array<{ url: string; type: string; body: string }> = [];
    const receiver = createHttpServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          url: request.url ?? '',
          type: request.headers['content-type'] ?? '',
          body: Buffer.concat(chunks).toString('latin1'),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => receiver.close(() => resolve())));
    const port = (receiver.address() as AddressInfo).port;
    const tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: 'opsgate-test' })!;
    await roundTrip();
    await tracing.shutdown();
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]!.url).toBe('/v1/traces');
    const all = received.map((r) => r.body).join('\n');
    expect(all).toContain('execute_tool transfer');
    expect(all).toContain('opsgate-test');
  });
});
