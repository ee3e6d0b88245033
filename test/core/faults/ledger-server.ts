// The HTTP server the fault tests drive: the ledger test agent with its scripted model on a real
// store, the same createServer that `opsgate serve` runs, and a client that does the approval
// round trip over HTTP with bearer tokens.
import { appendFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { UserRepository } from '../../../src/core/identity/users.ts';
import { createRuntime, type Runtime } from '../../../src/core/runtime/index.ts';
import type { Store } from '../../../src/core/store/index.ts';
import { createServer } from '../../../src/server/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder } from '../../../src/testing/index.ts';

export const FAULT_PASSWORD = 'correct-horse-battery';

export interface LedgerServer {
  readonly app: FastifyInstance;
  readonly runtime: Runtime;
  readonly recorder: LedgerRecorder;
  close(): Promise<void>;
}

/** A server over `store`; each executed transfer is also appended to `transferLog` (one JSON line) when given. */
export async function startLedgerServer(store: Store, options: { transferLog?: string; heartbeatMs?: number } = {}): Promise<LedgerServer> {
  const recorder: LedgerRecorder = { reads: 0, transfers: [] };
  const transfers = recorder.transfers;
  if (options.transferLog) {
    const log = options.transferLog;
    const push = transfers.push.bind(transfers);
    transfers.push = (...items) => {
      for (const item of items) appendFileSync(log, `${JSON.stringify({ ...item, pid: process.pid })}\n`);
      return push(...items);
    };
  }
  const model = createLedgerModel();
  const runtime = await createRuntime({
    store,
    agents: [createLedgerAgent(recorder)],
    model: () => model,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  });
  const app = await createServer({ runtime, store, users: new UserRepository(store) });
  return {
    app,
    runtime,
    recorder,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}

/** A requester and an approver with API tokens. */
export async function createFaultUsers(store: Store): Promise<{ user: string; approver: string }> {
  const users = new UserRepository(store);
  await users.create({ username: 'john_doe', password: FAULT_PASSWORD, roles: ['user'] });
  await users.create({ username: 'alice', password: FAULT_PASSWORD, roles: ['approver'] });
  return { user: (await users.createToken('john_doe', 'faults')).token, approver: (await users.createToken('alice', 'faults')).token };
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: Record<string, unknown>;
}

/** One request, by `app.inject` (in process) or over a real port (`http://127.0.0.1:PORT`). */
export type Send = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) => Promise<HttpAnswer>;

export function injectClient(app: FastifyInstance): Send {
  return async (method, url, token, payload) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: response.statusCode, headers: response.headers, body: response.json() as Record<string, unknown> };
  };
}

export function portClient(base: string): Send {
  return async (method, url, token, payload) => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: (await response.json()) as Record<string, unknown>,
    };
  };
}

/** Starts a session and sends "pay bob AMOUNT": returns the session id and the pending call id. */
export async function propose(send: Send, token: string, amount: number): Promise<{ sessionId: string; callId: string }> {
  const started = await send('POST', '/api/sessions', token, { agent: 'ledger' });
  if (started.status !== 201) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  const sessionId = String(started.body.id);
  const turn = await send('POST', `/api/sessions/${sessionId}/messages`, token, { text: `pay bob ${amount}` });
  const interrupt = turn.body.interrupt as { type?: string; callId?: string } | undefined;
  if (turn.status !== 200 || interrupt?.type !== 'approval') throw new Error(`send: ${turn.status} ${JSON.stringify(turn.body)}`);
  return { sessionId, callId: String(interrupt.callId) };
}

export async function approve(send: Send, token: string, sessionId: string, callId: string): Promise<HttpAnswer> {
  return send('POST', `/api/sessions/${sessionId}/decisions`, token, { type: 'approve', callId });
}
