import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { createServer } from '../../src/server/index.ts';
import { createServerFixture, login, type ServerFixture } from '../../src/server/testing/server-fixture.ts';

type Inject = InjectOptions;

/** Requests as a signed-in browser: the cookie and, on writes, the CSRF token. */
function asBrowser(app: FastifyInstance, session: { cookie: string; csrfToken: string }) {
  return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    app.inject({
      method,
      url,
      headers: { cookie: session.cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': session.csrfToken }) },
      ...(payload ? { payload } : {}),
    } as Inject);
}

function asToken(app: FastifyInstance, token: string) {
  return (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) } as Inject);
}

describe('identity operations on the record, scoped tokens, durable logout (SQLite)', () => {
  let fixture: ServerFixture;
  beforeEach(async () => {
    fixture = await createServerFixture();
  });
  afterEach(async () => fixture.dispose());

  it('H1: every identity operation writes an audit event naming who did it and to whom, never a secret', async () => {
    const app = fixture.app;
    const admin = asBrowser(app, await login(app, 'admin', fixture.password));
    expect((await admin('POST', '/api/users', { username: 'bob', password: 'bob-password-1', roles: ['user'] })).statusCode).toBe(201);
    expect((await admin('PUT', '/api/users/bob/roles', { roles: ['approver'] })).statusCode).toBe(200);
    expect((await admin('POST', '/api/users/bob/password', { password: 'bob-password-2' })).statusCode).toBe(200);
    const minted = await admin('POST', '/api/users/alice/tokens', { name: 'totally-normal' });
    expect(minted.statusCode).toBe(201);
    const mintedToken = (minted.json() as { token: string; id: number }).token;
    expect((await admin('DELETE', `/api/tokens/${(minted.json() as { id: number }).id}`)).statusCode).toBe(200);
    expect((await admin('POST', '/api/users/bob/disable')).statusCode).toBe(200);
    expect((await admin('POST', '/api/users/bob/enable')).statusCode).toBe(200);
    expect(
      (await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password: 'not-his-password' } })).statusCode,
    ).toBe(401);
    const john = await login(app, 'john_doe', fixture.password);
    expect((await asBrowser(app, john)('POST', '/api/logout')).statusCode).toBe(200);
    const own = await asToken(app, fixture.tokens.owner)('POST', '/api/me/password', {
      currentPassword: fixture.password,
      newPassword: 'john-new-password',
    });
    expect(own.statusCode).toBe(200);

    const events = await new AuditLog(fixture.store).list();
    const identityEvents = events.filter((e) => e.sessionId === null).map((e) => ({ type: e.type, actor: e.actor, payload: e.payload }));
    expect(identityEvents).toEqual([
      { type: 'login_succeeded', actor: 'user:admin', payload: expect.objectContaining({ username: 'admin', method: 'password' }) },
      {
        type: 'user_created',
        actor: 'user:admin',
        payload: { username: 'bob', roles: ['user'], hasPassword: true, by: 'admin', via: 'web' },
      },
      {
        type: 'user_roles_changed',
        actor: 'user:admin',
        payload: { username: 'bob', from: ['user'], to: ['approver'], by: 'admin', via: 'web' },
      },
      {
        type: 'user_password_changed',
        actor: 'user:admin',
        payload: { username: 'bob', sessionsEnded: true, tokensKept: true, by: 'admin', via: 'web' },
      },
      {
        type: 'token_issued',
        actor: 'user:admin',
        payload: expect.objectContaining({
          holder: 'alice',
          name: 'totally-normal',
          scopes: ['use'],
          by: 'admin',
          expiresAt: expect.any(String),
        }),
      },
      {
        type: 'token_revoked',
        actor: 'user:admin',
        payload: expect.objectContaining({ holder: 'alice', name: 'totally-normal', by: 'admin' }),
      },
      {
        type: 'user_disabled',
        actor: 'user:admin',
        payload: expect.objectContaining({ username: 'bob', sessionsEnded: true, tokensRevoked: 0 }),
      },
      { type: 'user_enabled', actor: 'user:admin', payload: expect.objectContaining({ username: 'bob' }) },
      { type: 'login_failed', actor: 'system', payload: expect.objectContaining({ username: 'john_doe', reason: 'wrong password' }) },
      { type: 'login_succeeded', actor: 'user:john_doe', payload: expect.objectContaining({ username: 'john_doe' }) },
      { type: 'logout', actor: 'user:john_doe', payload: { username: 'john_doe', via: 'web' } },
      {
        type: 'user_password_changed',
        actor: 'user:john_doe',
        payload: expect.objectContaining({ username: 'john_doe', by: 'john_doe', via: 'rest' }),
      },
    ]);
    const everything = JSON.stringify(events);
    for (const secret of [
      fixture.password,
      'bob-password-1',
      'bob-password-2',
      'not-his-password',
      'john-new-password',
      mintedToken,
      'ogt_',
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect((await new AuditLog(fixture.store).verify()).ok).toBe(true);
  });

  it('H1: a token an admin mints for an approver names its issuer, gets only `use` by default, and does not approve', async () => {
    const app = fixture.app;
    const john = fixture.identities.owner;
    const session = await fixture.runtime.startSession({ agent: 'ledger', identity: john });
    const turn = await fixture.runtime.send(session.id, 'pay bob 30', john);
    const callId = turn.interrupt!.callId;

    const admin = asToken(app, fixture.tokens.admin);
    const minted = (await admin('POST', '/api/users/alice/tokens', { name: 'borrowed' })).json() as { token: string };
    const borrowed = await fixture.users.authenticateToken(minted.token);
    expect(borrowed?.identity).toEqual({
      userId: fixture.identities.approver.userId,
      username: 'alice',
      roles: ['user'],
      channel: 'rest',
      credentialIssuedBy: 'admin',
    });
    const refused = await asToken(app, minted.token)('POST', `/api/approvals/${callId}/approve`, {});
    expect(refused.statusCode).toBeGreaterThanOrEqual(403);
    expect(fixture.recorder.transfers).toHaveLength(0);

    // Even with the approve scope, the identity carries the issuer for the decision authorizer to refuse and name.
    const withApprove = (await admin('POST', '/api/users/alice/tokens', { name: 'borrowed-2', scopes: ['use', 'approve'] })).json() as {
      token: string;
    };
    expect((await fixture.users.authenticateToken(withApprove.token))?.identity).toMatchObject({
      roles: ['user', 'approver'],
      credentialIssuedBy: 'admin',
    });
    // With the decision authorizer (main): the borrowed approve token is refused, the policy names why, nothing runs.
    const borrowedApproval = await asToken(app, withApprove.token)('POST', `/api/approvals/${callId}/approve`, {});
    expect(borrowedApproval.statusCode).toBe(403);
    expect(borrowedApproval.json()).toMatchObject({ code: 'APPROVAL_REFUSED', message: expect.stringContaining('issued by someone else') });
    expect(fixture.recorder.transfers).toHaveLength(0);
    // Alice's own token approves.
    expect((await asToken(app, fixture.tokens.approver)('POST', `/api/approvals/${callId}/approve`, {})).statusCode).toBe(200);
    expect(fixture.recorder.transfers).toHaveLength(1);
    // A borrowed token cannot launder itself into a self-issued one.
    const laundered = (await asToken(app, minted.token)('POST', '/api/tokens', { name: 'mine-now' })).json() as {
      token: string;
      issuedBy: string;
    };
    expect(laundered.issuedBy).toBe('admin');
    // What is done with a borrowed token is on the record with its issuer.
    const mintedThrough = (await new AuditLog(fixture.store).list({ type: 'token_issued' })).at(-1)!;
    expect(mintedThrough).toMatchObject({ actor: 'user:alice', payload: { holder: 'alice', by: 'admin', credentialIssuedBy: 'admin' } });
    expect((await fixture.users.authenticateToken(laundered.token))?.identity.credentialIssuedBy).toBe('admin');
    expect((await asToken(app, minted.token)('POST', '/api/tokens', { name: 'x', scopes: ['use', 'approve'] })).json()).toMatchObject({
      code: 'TOKEN_SCOPE_MISSING',
    });

    const listed = (await admin('GET', '/api/users/alice/tokens')).json() as { tokens: Array<Record<string, unknown>> };
    expect(listed.tokens.find((t) => t.name === 'borrowed')).toMatchObject({
      scopes: ['use'],
      issuedBy: 'admin',
      expiresAt: expect.any(String),
    });
    expect(listed.tokens.find((t) => t.name === 'test')).toMatchObject({ scopes: ['use', 'approve'], issuedBy: 'alice' });
  });

  it('tokens expire (default 90 days, at most a year) and keep only the roles their scopes allow', async () => {
    const app = fixture.app;
    const issued = (await asToken(app, fixture.tokens.owner)('POST', '/api/tokens', { name: 'ci' })).json() as {
      expiresAt: string;
      scopes: string[];
    };
    const days = (Date.parse(issued.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    expect(issued.scopes).toEqual(['use']);
    expect((await asToken(app, fixture.tokens.owner)('POST', '/api/tokens', { name: 'long', expiresInDays: 366 })).statusCode).toBe(400);
    const short = (await asToken(app, fixture.tokens.owner)('POST', '/api/tokens', { name: 'short', expiresInDays: 30 })).json() as {
      expiresAt: string;
    };
    expect(Math.round((Date.parse(short.expiresAt) - Date.now()) / 86_400_000)).toBe(30);

    // A token issued two days ago for one day has run out: 401 with what to do.
    const past = new UserRepository(fixture.store, { now: () => new Date(Date.now() - 2 * 86_400_000) });
    const old = await past.createToken('john_doe', 'old', { expiresInMs: 86_400_000 });
    const expired = await asToken(app, old.token)('GET', '/api/me');
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toMatchObject({ code: 'TOKEN_EXPIRED', message: expect.stringContaining('Issue a new one') });

    // Scopes: no `use` → no new sessions; no `admin` → no admin role; no `approve` → no approver role.
    const approveOnly = await fixture.users.createToken('alice', 'approve-only', { scopes: ['approve'] });
    const noUse = await asToken(app, approveOnly.token)('POST', '/api/sessions', { agent: 'ledger' });
    expect(noUse.statusCode).toBe(403);
    expect(noUse.json()).toMatchObject({ code: 'TOKEN_SCOPE_MISSING', message: expect.stringContaining('"use"') });
    const adminUseOnly = await fixture.users.createToken('admin', 'use-only', { scopes: ['use'] });
    expect((await asToken(app, adminUseOnly.token)('GET', '/api/users')).json()).toMatchObject({ code: 'ROLE_REQUIRED' });
    expect((await asToken(app, adminUseOnly.token)('GET', '/api/me')).json()).toMatchObject({ user: { roles: ['user'] } });
    const aliceUse = await fixture.users.createToken('alice', 'use-only', { scopes: ['use'] });
    expect((await asToken(app, aliceUse.token)('GET', '/api/me')).json()).toMatchObject({ user: { roles: ['user'] } });
    await expect(fixture.users.createToken('john_doe', 'x', { scopes: ['admin'] })).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });

  it('a cookie acts through the `web` channel, a bearer token through `rest`', async () => {
    const john = await login(fixture.app, 'john_doe', fixture.password);
    const viaCookie = await asBrowser(fixture.app, john)('POST', '/api/logout');
    expect(viaCookie.statusCode).toBe(200);
    await asToken(fixture.app, fixture.tokens.owner)('POST', '/api/logout');
    const logouts = await new AuditLog(fixture.store).list({ type: 'logout' });
    expect(logouts.map((e) => e.payload.via)).toEqual(['web', 'rest']);
    expect((await fixture.users.authenticateToken(fixture.tokens.owner))?.identity.channel).toBe('rest');
  });

  it('M5: logout survives a restart; a password change and a disable end every session; disable revokes tokens, a password change keeps them', async () => {
    const app = fixture.app;
    const restart = () => createServer({ runtime: fixture.runtime, store: fixture.store, cookieKey: fixture.cookieKey });
    const first = await login(app, 'alice', fixture.password);
    expect((await asBrowser(app, first)('GET', '/api/me')).statusCode).toBe(200);
    expect((await asBrowser(app, first)('POST', '/api/logout')).statusCode).toBe(200);
    expect((await asBrowser(app, first)('GET', '/api/me')).statusCode).toBe(401);
    const restarted = await restart();
    try {
      expect((await asBrowser(restarted, first)('GET', '/api/me')).statusCode).toBe(401);

      // Password change by the person: every other session ends, this one gets a fresh cookie.
      const laptop = await login(app, 'alice', fixture.password);
      const phone = await login(app, 'alice', fixture.password);
      const changed = await asBrowser(app, laptop)('POST', '/api/me/password', {
        currentPassword: fixture.password,
        newPassword: 'alice-new-pass',
      });
      expect(changed.statusCode).toBe(200);
      const fresh = {
        cookie: `${changed.cookies[0]!.name}=${changed.cookies[0]!.value}`,
        csrfToken: (changed.json() as { csrfToken: string }).csrfToken,
      };
      expect((await asBrowser(restarted, phone)('GET', '/api/me')).statusCode).toBe(401);
      expect((await asBrowser(restarted, laptop)('GET', '/api/me')).statusCode).toBe(401);
      expect((await asBrowser(restarted, fresh)('GET', '/api/me')).statusCode).toBe(200);
      expect((await asToken(restarted, fixture.tokens.approver)('GET', '/api/me')).statusCode).toBe(200);
      const wrongCurrent = await asBrowser(app, fresh)('POST', '/api/me/password', {
        currentPassword: 'nope-nope',
        newPassword: 'whatever-else',
      });
      expect(wrongCurrent.json()).toMatchObject({ code: 'PASSWORD_MISMATCH' });

      // Disable: sessions end, tokens are revoked, sign-in says the account is disabled.
      const admin = asToken(app, fixture.tokens.admin);
      const john = await login(app, 'john_doe', fixture.password);
      expect((await admin('POST', '/api/users/john_doe/disable')).json()).toMatchObject({ disabled: true });
      expect((await asBrowser(restarted, john)('GET', '/api/me')).statusCode).toBe(401);
      expect((await asToken(restarted, fixture.tokens.owner)('GET', '/api/me')).statusCode).toBe(401);
      const again = await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password: fixture.password } });
      expect(again.json()).toMatchObject({ code: 'USER_DISABLED' });
      await admin('POST', '/api/users/john_doe/enable');
      expect(
        (await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'john_doe', password: fixture.password } })).statusCode,
      ).toBe(200);
      expect((await asToken(app, fixture.tokens.owner)('GET', '/api/me')).statusCode).toBe(401);
    } finally {
      await restarted.close();
    }
  });
});

describe('login limits, session quota, secure cookies (SQLite)', () => {
  let fixture: ServerFixture | undefined;
  afterEach(async () => fixture?.dispose());

  const attempt = (app: FastifyInstance, username: string, password: string, remoteAddress = '10.0.0.1') =>
    app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress });

  it('L6: failures lock one account from one address; the right password of another account from that address still works', async () => {
    fixture = await createServerFixture({ loginLimits: { perAccountAndAddress: 3, perAccount: 6, perAddress: 100 } });
    const { app, password } = fixture;
    for (let i = 0; i < 3; i += 1) expect((await attempt(app, 'john_doe', 'wrong-password')).statusCode).toBe(401);
    const locked = await attempt(app, 'john_doe', password);
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'LOGIN_LOCKED', message: expect.stringContaining('john_doe') });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect((await attempt(app, 'alice', password)).statusCode).toBe(200);
    // From another address john_doe still signs in, until the account's own limit is reached.
    expect((await attempt(app, 'john_doe', password, '10.0.0.2')).statusCode).toBe(200);
    for (const address of ['10.0.0.3', '10.0.0.4', '10.0.0.5']) await attempt(app, 'john_doe', 'wrong-password', address);
    const accountLocked = await attempt(app, 'john_doe', password, '10.0.0.9');
    expect(accountLocked.json()).toMatchObject({ code: 'LOGIN_LOCKED' });
  });

  it('L6: an address spraying many accounts gets one guess per further account; an account it never failed still signs in', async () => {
    fixture = await createServerFixture({ loginLimits: { perAccountAndAddress: 5, perAccount: 50, perAddress: 4 } });
    const { app, password } = fixture;
    for (const name of ['x1', 'x2', 'x3', 'x4']) await attempt(app, name, 'wrong-password');
    expect((await attempt(app, 'jane_smith', 'wrong-password')).statusCode).toBe(401);
    expect((await attempt(app, 'jane_smith', password)).statusCode).toBe(429);
    expect((await attempt(app, 'alice', password)).statusCode).toBe(200);
  });

  it('L7: a person may start only so many sessions per minute: 429 SESSION_QUOTA saying what to do', async () => {
    fixture = await createServerFixture({ sessionQuota: { active: 10, perMinute: 2 } });
    const start = () => asToken(fixture!.app, fixture!.tokens.owner)('POST', '/api/sessions', { agent: 'ledger' });
    expect((await start()).statusCode).toBe(201);
    expect((await start()).statusCode).toBe(201);
    const refused = await start();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'SESSION_QUOTA', message: expect.stringContaining('Continue one of your sessions') });
    expect(refused.headers['retry-after']).toBe('60');
    // Another person is not affected.
    expect((await asToken(fixture.app, fixture.tokens.other)('POST', '/api/sessions', { agent: 'ledger' })).statusCode).toBe(201);
  });

  it('L7: the number of sessions in use is bounded too', async () => {
    fixture = await createServerFixture({ sessionQuota: { active: 2, perMinute: 100 } });
    const start = () => asToken(fixture!.app, fixture!.tokens.owner)('POST', '/api/sessions', { agent: 'ledger' });
    await start();
    await start();
    expect((await start()).json()).toMatchObject({ code: 'SESSION_QUOTA', message: expect.stringContaining('in use') });
  });

  it('L1: over HTTPS the cookie is Secure and __Host- prefixed; behind a declared proxy it follows X-Forwarded-Proto', async () => {
    fixture = await createServerFixture({ secureCookies: true });
    const secure = await fixture.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'john_doe', password: fixture.password },
    });
    expect(secure.cookies[0]).toMatchObject({
      name: '__Host-opsgate_session',
      secure: true,
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });
    const cookie = `${secure.cookies[0]!.name}=${secure.cookies[0]!.value}`;
    expect((await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { cookie } })).statusCode).toBe(200);
    // The plain name is not read on an HTTPS server (a subdomain or plain-HTTP page could have set it).
    const plain = `opsgate_session=${secure.cookies[0]!.value}`;
    expect((await fixture.app.inject({ method: 'GET', url: '/api/me', headers: { cookie: plain } })).statusCode).toBe(401);
    await fixture.dispose();

    fixture = await createServerFixture({ trustProxy: true });
    const proxied = await fixture.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'john_doe', password: fixture.password },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(proxied.cookies[0]).toMatchObject({ name: '__Host-opsgate_session', secure: true });
    const direct = await fixture.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'john_doe', password: fixture.password },
    });
    expect(direct.cookies[0]).toMatchObject({ name: 'opsgate_session' });
    expect(direct.cookies[0]!.secure).toBeFalsy();
    await fixture.dispose();

    // Without a declared proxy the header is not believed.
    fixture = await createServerFixture();
    const spoofed = await fixture.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'john_doe', password: fixture.password },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(spoofed.cookies[0]).toMatchObject({ name: 'opsgate_session' });
  });
});
