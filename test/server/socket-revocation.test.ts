import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createServer } from '../../src/server/index.ts';
import { createServerFixture, login, type ServerFixture } from '../../src/server/testing/server-fixture.ts';

interface OpenSocket {
  readonly frames: Array<{ type: string; code?: string; event?: { type: string } }>;
  /**
   * Resolves with the close code. Awaited with no deadline of its own: a close that never comes
   * fails at the test timeout, and how fast it comes is not what these tests ask (a 5 s deadline
   * was an upper-bound timing assertion, which a loaded machine can break).
   */
  readonly closed: Promise<number>;
}

/** A real WebSocket client on the session socket; resolves once the server said `ready`. */
function open(url: string, headers: Record<string, string>): Promise<OpenSocket> {
  return new Promise((resolve, reject) => {
    const frames: OpenSocket['frames'] = [];
    const socket = new WebSocket(url, { headers });
    const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as OpenSocket['frames'][number];
      frames.push(frame);
      if (frame.type === 'ready') resolve({ frames, closed });
    });
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

describe('L3: an open WebSocket ends when its person signs out, changes password, is disabled or loses access (real port)', () => {
  let fixture: ServerFixture;
  let base: string;
  beforeEach(async () => {
    fixture = await createServerFixture();
    await fixture.app.listen({ port: 0, host: '127.0.0.1' });
    const address = fixture.app.server.address();
    base = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterEach(async () => fixture.dispose());

  const http = (app: FastifyInstance, method: 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: object) =>
    app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it('logout closes the socket at once', async () => {
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: fixture.identities.owner });
    const john = await login(fixture.app, 'john_doe', fixture.password);
    const socket = await open(`${base}/api/sessions/${session.id}/socket`, { cookie: john.cookie });
    expect((await http(fixture.app, 'POST', '/api/logout', { cookie: john.cookie, 'x-csrf-token': john.csrfToken })).statusCode).toBe(200);
    expect(await socket.closed).toBe(4401);
    expect(socket.frames.at(-1)).toMatchObject({ type: 'error', code: 'AUTH_REQUIRED' });
  });

  it('a logout on another replica: the next event is not delivered, the socket closes instead', async () => {
    const owner = fixture.identities.owner;
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: owner });
    const john = await login(fixture.app, 'john_doe', fixture.password);
    const socket = await open(`${base}/api/sessions/${session.id}/socket`, { cookie: john.cookie });
    // The other server shares the store and the cookie key but not this process's memory.
    const replica = await createServer({ runtime: fixture.runtime, store: fixture.store, cookieKey: fixture.cookieKey });
    try {
      expect((await http(replica, 'POST', '/api/logout', { cookie: john.cookie, 'x-csrf-token': john.csrfToken })).statusCode).toBe(200);
      const before = socket.frames.length;
      await fixture.runtime.send(session.id, 'pay bob 30', owner);
      expect(await socket.closed).toBe(4401);
      expect(socket.frames.slice(before).filter((f) => f.type === 'event')).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it("a password change and a disable close the person's sockets; a role removal closes an approver's view of another's session", async () => {
    const adminHeaders = { authorization: `Bearer ${fixture.tokens.admin}` };
    const johnSession = await fixture.runtime.startSession({ agent: 'ledger', identity: fixture.identities.owner });
    const url = `${base}/api/sessions/${johnSession.id}/socket`;

    const alice = await login(fixture.app, 'alice', fixture.password);
    const byPassword = await open(url, { cookie: alice.cookie });
    const byRole = await open(url, { authorization: `Bearer ${fixture.tokens.approver}` });
    const owner = await open(url, { authorization: `Bearer ${fixture.tokens.owner}` });

    expect((await http(fixture.app, 'POST', '/api/users/alice/password', adminHeaders, { password: 'a-new-password' })).statusCode).toBe(
      200,
    );
    expect(await byPassword.closed).toBe(4401);

    expect((await http(fixture.app, 'PUT', '/api/users/alice/roles', adminHeaders, { roles: ['user'] })).statusCode).toBe(200);
    expect(await byRole.closed).toBe(4401);

    expect((await http(fixture.app, 'POST', '/api/users/john_doe/disable', adminHeaders)).statusCode).toBe(200);
    expect(await owner.closed).toBe(4401);
  });

  it('a socket whose person is still allowed keeps receiving events', async () => {
    const owner = fixture.identities.owner;
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: owner });
    const socket = await open(`${base}/api/sessions/${session.id}/socket`, { authorization: `Bearer ${fixture.tokens.owner}` });
    await fixture.runtime.send(session.id, 'pay bob 30', owner);
    // Until it arrives: an event that never does fails at the test timeout.
    while (!socket.frames.some((f) => f.event?.type === 'interrupt')) await new Promise((r) => setTimeout(r, 25));
    expect(socket.frames.filter((f) => f.type === 'error')).toEqual([]);
  });
});
