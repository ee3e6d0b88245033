import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listErrorCodes } from '../core/errors/index.ts';
import { type ActorName, createServerFixture, login, type ServerFixture } from './testing/server-fixture.ts';

type Who = ActorName | 'anonymous';
const everyone: Who[] = ['owner', 'other', 'approver', 'admin', 'anonymous'];

/** Runs `test` on a server of its own, for a test that needs one nobody else used (a fixture costs four scrypt hashes). */
async function withOwnFixture(overrides: Parameters<typeof createServerFixture>[0], test: (fixture: ServerFixture) => Promise<void>) {
  const fixture = await createServerFixture(overrides);
  try {
    await test(fixture);
  } finally {
    await fixture.dispose();
  }
}

// The tests of a describe share one server: each signs in, starts its own sessions and reads only
// those, so one test's state cannot decide another's outcome. A test that counts what the whole
// server holds, or spends its login budget, gets a server of its own.
describe('server: authentication, CSRF, headers, errors', () => {
  let fixture: ServerFixture;
  beforeAll(async () => {
    fixture = await createServerFixture();
  });
  afterAll(async () => fixture.dispose());

  it('login sets an HttpOnly, SameSite=Strict cookie and returns a CSRF token; wrong passwords get LOGIN_FAILED', async () => {
    const response = await fixture.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'john_doe', password: fixture.password },
    });
    expect(response.statusCode).toBe(200);
    const cookie = response.cookies[0]!;
    expect(cookie).toMatchObject({ name: 'opsgate_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(response.json()).toMatchObject({ user: { username: 'john_doe', roles: ['user'] }, csrfToken: expect.any(String) });
    const wrong = await fixture.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password: 'nope-nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ code: 'LOGIN_FAILED', message: expect.stringContaining('wrong') });
    expect(wrong.cookies).toHaveLength(0);
  });

  it('rate-limits login attempts per address', async () => {
    await withOwnFixture({ loginRateLimit: { max: 3, timeWindow: 60_000 } }, async (limitedServer) => {
      const attempt = () =>
        limitedServer.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password: 'wrong-password' } });
      for (let i = 0; i < 3; i += 1) expect((await attempt()).statusCode).toBe(401);
      const limited = await attempt();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    });
  });

  it('cookie-authenticated writes need the X-CSRF-Token header and a same origin; bearer tokens do not', async () => {
    const { cookie, csrfToken } = await login(fixture.app, 'john_doe', fixture.password);
    const start = (headers: Record<string, string>) =>
      fixture.app.inject({ method: 'POST', url: '/api/sessions', headers: { cookie, ...headers }, payload: { agent: 'ledger' } });
    expect((await start({})).json()).toMatchObject({ code: 'CSRF_REJECTED' });
    expect((await start({ 'x-csrf-token': 'forged' })).statusCode).toBe(403);
    expect((await start({ 'x-csrf-token': csrfToken, origin: 'https://evil.example', host: 'localhost:80' })).statusCode).toBe(403);
    expect((await start({ 'x-csrf-token': csrfToken })).statusCode).toBe(201);
    const me = await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { cookie } });
    expect(me.json()).toMatchObject({ user: { username: 'john_doe' }, csrfToken });
    const bearer = await fixture.app.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: { authorization: `Bearer ${fixture.tokens.owner}` },
      payload: { agent: 'ledger' },
    });
    expect(bearer.statusCode).toBe(201);
  });

  it('a forged, tampered or logged-out cookie is refused', async () => {
    const { cookie, csrfToken } = await login(fixture.app, 'john_doe', fixture.password);
    const tampered = cookie.replace(/\.(\d+)\./, (_m, id: string) => `.${Number(id) + 1}.`);
    expect((await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: tampered } })).statusCode).toBe(401);
    expect(
      (await fixture.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie, 'x-csrf-token': csrfToken } })).statusCode,
    ).toBe(200);
    const after = await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'AUTH_REQUIRED' });
    expect((await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: 'Bearer ogt_invalid' } })).statusCode).toBe(
      401,
    );
  });

  it('without single sign-on the login screen is told so with 200 { enabled: false }, not a 404', async () => {
    const response = await fixture.app.inject({ method: 'GET', url: '/api/oidc/status' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ enabled: false });
  });

  it('sends security headers (CSP without inline scripts, nosniff, frame-ancestors none, referrer policy)', async () => {
    const response = await fixture.app.inject({ method: 'GET', url: '/api/health' });
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers bad input with 400 and a clear message, unknown routes with 404, never a stack trace', async () => {
    const headers = { authorization: `Bearer ${fixture.tokens.owner}` };
    const bad = await fixture.app.inject({ method: 'POST', url: '/api/sessions', headers, payload: { agent: '', extra: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_REQUEST');
    expect(bad.json().message).toMatch(/body\.agent/);
    const badJson = await fixture.app.inject({
      method: 'POST',
      url: '/api/sessions',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"agent":',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.body).not.toMatch(/at .*\.(ts|js):\d+/);
    const unknownAgent = await fixture.app.inject({ method: 'POST', url: '/api/sessions', headers, payload: { agent: 'nope' } });
    expect(unknownAgent.statusCode).toBe(404);
    expect(unknownAgent.json()).toMatchObject({ code: 'UNKNOWN_AGENT' });
    const missing = await fixture.app.inject({ method: 'GET', url: '/api/nothing-here', headers });
    expect(missing.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    for (const code of ['LOGIN_FAILED', 'CSRF_REJECTED', 'RATE_LIMITED', 'INVALID_REQUEST', 'INTERNAL'])
      expect(listErrorCodes().has(code)).toBe(true);
  });

  it('serves an OpenAPI document generated from the zod schemas and a reference page at /docs', async () => {
    const document = (await fixture.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/login',
        '/api/sessions',
        '/api/sessions/{sessionId}/decisions',
        '/api/audit',
        '/api/audit/export',
        '/api/users',
      ]),
    );
    const decision = document.paths['/api/sessions/{sessionId}/decisions'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(decision)).toContain('modify');
    expect(JSON.stringify(decision)).toContain('replan');
    expect(Object.keys(document.paths)).toContain('/api/sessions/{sessionId}/approvals/{callId}/readiness');
    const docs = await fixture.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.body).toContain('/api/sessions/{sessionId}/messages');
    expect(docs.body).not.toContain('<script');
  });
});

describe('server: who may do what (route × owner / other / approver / admin / anonymous)', () => {
  let fixture: ServerFixture;
  beforeAll(async () => {
    fixture = await createServerFixture();
  });
  afterAll(async () => fixture.dispose());

  const headersOf = (who: Who, server = fixture) => (who === 'anonymous' ? {} : { authorization: `Bearer ${server.tokens[who]}` });

  /** A session of the owner that waits for the approval of `transfer`. */
  async function waitingSession(server = fixture): Promise<{ id: string; callId: string }> {
    const session = await server.runtime.startSession({ agent: 'ledger', identity: server.identities.owner });
    const turn = await server.runtime.send(session.id, 'pay bob 30', server.identities.owner);
    return { id: session.id, callId: turn.interrupt!.callId };
  }

  const matrix: Array<{
    route: string;
    expected: Record<Who, number>;
    request: (s: { id: string; callId: string }) => { method: 'GET' | 'POST'; url: string; payload?: object };
  }> = [
    {
      route: 'GET /api/sessions/:id',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'GET', url: `/api/sessions/${s.id}` }),
    },
    {
      route: 'GET /api/sessions/:id/events',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'GET', url: `/api/sessions/${s.id}/events?after=0` }),
    },
    {
      route: 'GET /api/sessions/:id/approvals/:callId/readiness',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'GET', url: `/api/sessions/${s.id}/approvals/${s.callId}/readiness` }),
    },
    {
      route: 'POST /api/sessions/:id/decisions (approve)',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'POST', url: `/api/sessions/${s.id}/decisions`, payload: { type: 'approve', callId: s.callId } }),
    },
    {
      route: 'POST /api/sessions/:id/decisions (reject)',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({
        method: 'POST',
        url: `/api/sessions/${s.id}/decisions`,
        payload: { type: 'reject', callId: s.callId, reason: 'no' },
      }),
    },
    {
      route: 'POST /api/sessions/:id/feedback',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({
        method: 'POST',
        url: `/api/sessions/${s.id}/feedback`,
        payload: { rating: -1, target: s.callId, comment: 'wrong amount' },
      }),
    },
    {
      route: 'POST /api/sessions/:id/messages (answers the approval by text)',
      expected: { owner: 200, other: 403, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'POST', url: `/api/sessions/${s.id}/messages`, payload: { text: 'no' } }),
    },
    {
      route: 'GET /api/audit?session=:id (non-empty)',
      expected: { owner: 200, other: 200, approver: 200, admin: 200, anonymous: 401 },
      request: (s) => ({ method: 'GET', url: `/api/audit?session=${s.id}` }),
    },
    {
      route: 'GET /api/audit/verify',
      expected: { owner: 200, other: 200, approver: 200, admin: 200, anonymous: 401 },
      request: () => ({ method: 'GET', url: '/api/audit/verify' }),
    },
    {
      route: 'GET /api/users',
      expected: { owner: 403, other: 403, approver: 403, admin: 200, anonymous: 401 },
      request: () => ({ method: 'GET', url: '/api/users' }),
    },
    {
      route: 'POST /api/users',
      expected: { owner: 403, other: 403, approver: 403, admin: 201, anonymous: 401 },
      request: () => ({
        method: 'POST',
        url: '/api/users',
        payload: { username: `u${Math.random().toString(36).slice(2, 8)}`, password: 'long-enough-1', roles: ['user'] },
      }),
    },
    {
      route: 'POST /api/users/:name/tokens',
      expected: { owner: 403, other: 403, approver: 403, admin: 201, anonymous: 401 },
      request: () => ({ method: 'POST', url: '/api/users/jane_smith/tokens', payload: { name: 'ci' } }),
    },
    {
      route: 'GET /api/tokens',
      expected: { owner: 200, other: 200, approver: 200, admin: 200, anonymous: 401 },
      request: () => ({ method: 'GET', url: '/api/tokens' }),
    },
    {
      route: 'GET /api/agents',
      expected: { owner: 200, other: 200, approver: 200, admin: 200, anonymous: 401 },
      request: () => ({ method: 'GET', url: '/api/agents' }),
    },
  ];

  for (const row of matrix) {
    it(row.route, async () => {
      const actual: Record<string, number> = {};
      for (const who of everyone) {
        const session = await waitingSession();
        const response = await fixture.app.inject({ ...row.request(session), headers: headersOf(who) });
        actual[who] = response.statusCode;
        if (response.statusCode >= 400) expect(Object.keys(response.json()).sort()).toEqual(['code', 'message']);
      }
      expect(actual).toEqual(row.expected);
    });
  }

  it('a person sees only the audit events of their own sessions; approvers see all', async () => {
    const session = await waitingSession();
    const get = async (who: ActorName) =>
      (await fixture.app.inject({ method: 'GET', url: `/api/audit?session=${session.id}`, headers: headersOf(who) })).json()
        .events as Array<{ type: string }>;
    expect((await get('owner')).map((e) => e.type)).toContain('tool_proposed');
    expect(await get('other')).toEqual([]);
    expect((await get('approver')).length).toBeGreaterThan(0);
  });

  it("nobody may start or message a session as someone else: POST messages on an idle session is the owner's alone", async () => {
    await withOwnFixture({}, async (server) => {
      const session = await server.runtime.startSession({ agent: 'ledger', identity: server.identities.owner });
      for (const who of ['other', 'approver', 'admin'] as const) {
        const response = await server.app.inject({
          method: 'POST',
          url: `/api/sessions/${session.id}/messages`,
          headers: headersOf(who, server),
          payload: { text: 'pay me 1000' },
        });
        expect(response.statusCode).toBe(403);
      }
      expect(server.recorder.transfers).toHaveLength(0);
    });
  });

  it("lists only the caller's sessions unless an approver asks for all", async () => {
    await withOwnFixture({}, async (server) => {
      await waitingSession(server);
      const list = async (who: ActorName, all: boolean) =>
        (await server.app.inject({ method: 'GET', url: `/api/sessions${all ? '?all=true' : ''}`, headers: headersOf(who, server) })).json()
          .sessions as unknown[];
      expect(await list('owner', false)).toHaveLength(1);
      expect(await list('other', true)).toHaveLength(0);
      expect(await list('approver', true)).toHaveLength(1);
    });
  });
});
