import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyWebhookSignature,
  WebhookDispatcher,
  webhookOptionsFromEnv,
} from '../../src/server/webhooks/index.ts';
import { createLedgerAgent, createLedgerModel, type TestStore, testStoreFactories } from '../../src/testing/index.ts';

const SECRET = 'a-shared-secret-of-some-length';

interface Received {
  readonly event: string;
  readonly body: Record<string, unknown>;
}

/** A receiver on 127.0.0.1 that checks every signature and answers 503 to the first `failFirst` requests. */
async function startReceiver(secret: string, failFirst: number) {
  const received: Received[] = [];
  let requests = 0;
  let badSignatures = 0;
  const read = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    return text;
  };
  const server: Server = createHttpServer(async (request, response) => {
    const body = await read(request);
    requests += 1;
    const valid = verifyWebhookSignature(
      secret,
      String(request.headers[TIMESTAMP_HEADER]),
      body,
      String(request.headers[SIGNATURE_HEADER]),
    );
    if (!valid) {
      badSignatures += 1;
      response.writeHead(401).end();
      return;
    }
    if (requests <= failFirst) {
      response.writeHead(503).end();
      return;
    }
    received.push({ event: String(request.headers['x-opsgate-event']), body: JSON.parse(body) as Record<string, unknown> });
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    stats: () => ({ requests, badSignatures }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(testStoreFactories())('approval webhooks on $dialect', (factory) => {
  let handle: TestStore;
  let runtime: Runtime;
  const alice = { userId: 1, username: 'alice', roles: ['user'] };
  beforeEach(async () => {
    handle = await factory.create();
    runtime = await createRuntime({
      store: handle.store,
      agents: [createLedgerAgent({ reads: 0, transfers: [] })],
      model: () => createLedgerModel(),
    });
  });
  afterEach(async () => {
    await runtime.close();
    await handle.dispose();
  });

  it('posts signed JSON for a request and its decision, retries a failing receiver with backoff, and records every delivery', async () => {
    const receiver = await startReceiver(SECRET, 2);
    const dispatcher = await WebhookDispatcher.create(handle.store, {
      urls: [receiver.url],
      secret: SECRET,
      initialDelayMs: 5,
      maxDelayMs: 20,
    });
    dispatcher.start(runtime.events);
    try {
      const session = await runtime.startSession({ agent: 'ledger', identity: alice });
      const turn = await runtime.send(session.id, 'pay bob 30', alice);
      await dispatcher.drain();
      await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
      await dispatcher.drain();

      expect(receiver.received.map((r) => r.event)).toEqual(['approval.requested', 'approval.decided']);
      expect(receiver.received[0]!.body).toMatchObject({
        type: 'approval.requested',
        sessionId: session.id,
        approval: { callId: turn.interrupt!.callId, tool: 'transfer', requestedBy: 'alice', policyId: 'state-changes-need-approval' },
      });
      expect(receiver.received[1]!.body).toMatchObject({ type: 'approval.decided', decision: { decision: 'approve', by: 'alice' } });
      expect(receiver.stats()).toEqual({ requests: 4, badSignatures: 0 });
      const deliveries = await dispatcher.deliveries.list();
      expect(deliveries.map((d) => [d.event, d.status, d.attempts, d.response_status]).sort()).toEqual([
        ['approval.decided', 'delivered', 1, 204],
        ['approval.requested', 'delivered', 3, 204],
      ]);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });

  it('gives up after the last attempt and records the failure; a receiver with another secret refuses the signature', async () => {
    const receiver = await startReceiver('the-receivers-other-secret', 0);
    const dispatcher = await WebhookDispatcher.create(handle.store, {
      urls: [receiver.url],
      secret: SECRET,
      attempts: 3,
      initialDelayMs: 5,
      maxDelayMs: 10,
    });
    dispatcher.start(runtime.events);
    try {
      const session = await runtime.startSession({ agent: 'ledger', identity: alice });
      await runtime.send(session.id, 'pay bob 30', alice);
      await dispatcher.drain();
      expect(receiver.received).toEqual([]);
      expect(receiver.stats()).toEqual({ requests: 3, badSignatures: 3 });
      expect(await dispatcher.deliveries.list()).toMatchObject([
        { event: 'approval.requested', status: 'failed', attempts: 3, response_status: 401, last_error: 'the receiver answered 401' },
      ]);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });

  it('is configured from the environment, refusing malformed settings', () => {
    expect(webhookOptionsFromEnv({})).toBeUndefined();
    expect(
      webhookOptionsFromEnv({ OPSGATE_WEBHOOK_URLS: 'http://127.0.0.1:9/a, https://relay.example/b', OPSGATE_WEBHOOK_SECRET: SECRET }),
    ).toEqual({
      urls: ['http://127.0.0.1:9/a', 'https://relay.example/b'],
      secret: SECRET,
    });
    expect(() => webhookOptionsFromEnv({ OPSGATE_WEBHOOK_URLS: 'http://127.0.0.1:9/a' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => webhookOptionsFromEnv({ OPSGATE_WEBHOOK_URLS: 'ftp://x/y', OPSGATE_WEBHOOK_SECRET: SECRET })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});
