import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionEvent } from '../../src/core/runtime/types.ts';
import { createServerFixture, type ServerFixture } from '../../src/server/testing/server-fixture.ts';

/** Opens the session socket and collects event frames until `stop` says so. */
function collect(url: string, token: string, until: (events: SessionEvent[]) => boolean): Promise<SessionEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SessionEvent[] = [];
    let done = false;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    socket.on('message', (data) => {
      if (done) return;
      const frame = JSON.parse(data.toString()) as { type: string; event?: SessionEvent };
      if (frame.type === 'event') events.push(frame.event!);
      if (until(events)) {
        done = true;
        socket.close();
        resolve(events);
      }
    });
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

describe('live events over WebSocket (real port)', () => {
  let fixture: ServerFixture;
  let base: string;
  beforeEach(async () => {
    fixture = await createServerFixture();
    await fixture.app.listen({ port: 0, host: '127.0.0.1' });
    const address = fixture.app.server.address();
    base = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterEach(async () => fixture.dispose());

  it('streams a turn live and a reconnecting client resumes after its last seq with nothing lost or doubled', async () => {
    const owner = fixture.identities.owner;
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: owner });
    const url = (after: number) => `${base}/api/sessions/${session.id}/socket?after=${after}`;
    // First connection: sees the turn's first events live, then drops.
    const firstPart = collect(url(0), fixture.tokens.owner, (events) => events.length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    const turn = fixture.runtime.send(session.id, 'pay bob 30', owner);
    const first = await firstPart;
    await turn;
    const lastSeen = first.at(-1)!.seq;
    // More events happen while disconnected.
    const decision = await fixture.runtime.getSession(session.id, owner);
    await fixture.runtime.decide(session.id, { type: 'approve', callId: decision.interrupt!.callId }, owner);
    const stored = await fixture.runtime.events.since(session.id, 0);
    const rest = await collect(url(lastSeen), fixture.tokens.owner, (events) => events.at(-1)?.seq === stored.at(-1)!.seq);
    const seqs = [...first, ...rest].map((e) => e.seq);
    expect(seqs).toEqual(stored.map((e) => e.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(stored.map((e) => e.type)).toEqual(expect.arrayContaining(['message', 'interrupt', 'decision']));
  });

  it('refuses the upgrade for another user and for anonymous callers', async () => {
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: fixture.identities.owner });
    const url = `${base}/api/sessions/${session.id}/socket`;
    await expect(collect(url, fixture.tokens.other, () => true)).rejects.toThrow('HTTP 403');
    await expect(collect(url, 'ogt_nobody', () => true)).rejects.toThrow('HTTP 401');
    const approver = await collect(url, fixture.tokens.approver, (events) => events.length >= 1);
    expect(approver[0]?.type).toBeDefined();
  });
});
