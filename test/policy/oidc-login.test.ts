import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Provider from 'oidc-provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { createServer } from '../../src/server/index.ts';
import { OidcIdentities, oidcConfigFromEnv } from '../../src/server/oidc/index.ts';
import { createLedgerAgent, createLedgerModel, type LedgerRecorder, sqliteTestStore, type TestStore } from '../../src/testing/index.ts';

const REDIRECT_URI = 'http://opsgate.test/api/oidc/callback';
const PEOPLE: Record<string, Record<string, unknown>> = {
  carol: { preferred_username: 'carol', groups: ['ops-approvers', 'staff'], teams: ['platform'] },
  dave: { preferred_username: 'dave', groups: ['staff'], teams: ['finance'] },
  alice: { preferred_username: 'alice', groups: ['ops-admins'] },
  erin: { preferred_username: 'erin', groups: ['ops-approvers'], teams: ['finance'] },
};

/** A real OpenID Connect provider (oidc-provider) on 127.0.0.1, with its development login screens. */
async function startProvider(): Promise<{ issuer: string; close(): Promise<void> }> {
  const server: Server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'opsgate',
        client_secret: 'opsgate-client-secret',
        redirect_uris: [REDIRECT_URI],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    claims: { openid: ['sub'], profile: ['preferred_username', 'groups', 'teams'] },
    conformIdTokenClaims: false,
    findAccount: async (_context: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...PEOPLE[sub] }) }),
  });
  server.on('request', provider.callback());
  return { issuer, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Plays the browser at the provider: follows redirects with cookies, signs in as `who`, consents. */
async function signInAtProvider(start: string, who: string): Promise<string> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  let url = start;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(REDIRECT_URI)) return url;
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: cookieHeader(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      jar.set(name!.trim(), value ?? '');
    }
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const page = await response.text();
    if (!url.includes('/interaction/')) throw new Error(`unexpected page at ${url}: ${response.status} ${page.slice(0, 200)}`);
    method = 'POST';
    body = page.includes('name="login"') ? `prompt=login&login=${who}&password=any` : 'prompt=consent';
  }
  throw new Error('too many redirects at the provider');
}

describe('single sign-on with OpenID Connect', () => {
  let handle: TestStore;
  let runtime: Runtime;
  let app: FastifyInstance;
  let provider: { issuer: string; close(): Promise<void> };
  let policyDir: string;
  const recorder: LedgerRecorder = { reads: 0, transfers: [] };

  beforeEach(async () => {
    provider = await startProvider();
    handle = await sqliteTestStore.create();
    policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'teams.cedar'),
      '@id("finance-team-does-not-approve-transfers")\n@reason("the finance team does not approve transfers it may book")\nforbid (principal in Opsgate::Team::"finance", action == Opsgate::Action::"approve", resource)\nwhen { context.tool == "transfer" };\n',
    );
    runtime = await createRuntime({
      store: handle.store,
      agents: [createLedgerAgent(recorder)],
      model: () => createLedgerModel(),
      policyDir,
      teamDirectory: await OidcIdentities.create(handle.store),
    });
    const users = new UserRepository(handle.store);
    await users.create({ username: 'alice', password: 'local-password-1', roles: ['user'] });
    const oidc = oidcConfigFromEnv({
      OPSGATE_OIDC_ISSUER: provider.issuer,
      OPSGATE_OIDC_CLIENT_ID: 'opsgate',
      OPSGATE_OIDC_CLIENT_SECRET: 'opsgate-client-secret',
      OPSGATE_OIDC_REDIRECT_URI: REDIRECT_URI,
      OPSGATE_OIDC_ROLE_MAP: 'ops-approvers=approver,ops-admins=admin',
      OPSGATE_OIDC_ALLOW_INSECURE: '1',
    });
    app = await createServer({ runtime, store: handle.store, users, ...(oidc ? { oidc } : {}) });
  });
  afterEach(async () => {
    await app.close();
    await runtime.close();
    await handle.dispose();
    await provider.close();
    rmSync(policyDir, { recursive: true, force: true });
  });

  /** The callback path and the state cookie the browser that started the sign-on holds. */
  async function startAndSignIn(who: string): Promise<{ path: string; stateCookie: string }> {
    const login = await app.inject({ method: 'GET', url: '/api/oidc/login' });
    expect(login.statusCode).toBe(302);
    expect(login.headers.location).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
    const state = login.cookies.find((c) => c.name === 'opsgate_oidc_state')!;
    expect(state).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/oidc' });
    const callback = new URL(await signInAtProvider(String(login.headers.location), who));
    return { path: `${callback.pathname}${callback.search}`, stateCookie: `${state.name}=${state.value}` };
  }

  /** Signs `who` in from start to callback in one browser; returns the callback's answer. */
  async function complete(who: string) {
    const { path, stateCookie } = await startAndSignIn(who);
    return app.inject({ method: 'GET', url: path, headers: { cookie: stateCookie } });
  }

  it('signs a person in through the provider, creating them with the roles their groups map to', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/oidc/status' })).json()).toEqual({ enabled: true, loginUrl: '/api/oidc/login' });
    const done = await complete('carol');
    expect(done.statusCode).toBe(200);
    const cookie = done.cookies.find((c) => c.name === 'opsgate_session')!;
    const me = await app.inject({ method: 'GET', url: '/api/me', headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(me.json()).toMatchObject({ user: { username: 'carol', roles: ['approver'] } });
    const staff = await complete('dave');
    const daveCookie = staff.cookies.find((c) => c.name === 'opsgate_session')!;
    const dave = await app.inject({ method: 'GET', url: '/api/me', headers: { cookie: `${daveCookie.name}=${daveCookie.value}` } });
    expect(dave.json()).toMatchObject({ user: { username: 'dave', roles: ['user'] } });
    expect(
      (await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'alice', password: 'local-password-1' } })).statusCode,
    ).toBe(200);
  });

  it('refuses a callback naming another issuer, a replayed state, and taking over a local account', async () => {
    const { path, stateCookie } = await startAndSignIn('carol');
    const forged = new URL(path, REDIRECT_URI);
    forged.searchParams.set('iss', 'http://evil.example');
    const refused = await app.inject({ method: 'GET', url: `${forged.pathname}${forged.search}`, headers: { cookie: stateCookie } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'OIDC_LOGIN_FAILED' });
    expect(refused.cookies.some((c) => c.name === 'opsgate_session')).toBe(false);
    expect((await app.inject({ method: 'GET', url: path, headers: { cookie: stateCookie } })).json()).toMatchObject({
      code: 'OIDC_LOGIN_FAILED',
    });

    const takeover = await complete('alice');
    expect(takeover.statusCode).toBe(409);
    expect(takeover.json()).toMatchObject({ code: 'OIDC_ACCOUNT_CONFLICT' });
    expect(await new UserRepository(handle.store).findByName('alice')).toMatchObject({ roles: ['user'] });
  });

  it('binds the sign-on to the browser that started it: a callback link sent to a victim signs nobody in (L9), and SSO is audited', async () => {
    // The attacker starts a sign-on and signs in at the issuer as himself, then sends the callback link.
    const attacker = await startAndSignIn('dave');
    const victimNoCookie = await app.inject({ method: 'GET', url: attacker.path });
    expect(victimNoCookie.statusCode).toBe(401);
    expect(victimNoCookie.json()).toMatchObject({ code: 'OIDC_STATE_MISMATCH', message: expect.stringContaining('Start again') });
    expect(victimNoCookie.cookies.some((c) => c.name === 'opsgate_session')).toBe(false);
    // A victim who started a sign-on of her own holds another state cookie: still refused.
    const victim = await app.inject({ method: 'GET', url: '/api/oidc/login' });
    const victimState = victim.cookies.find((c) => c.name === 'opsgate_oidc_state')!;
    const crossed = await app.inject({ method: 'GET', url: attacker.path, headers: { cookie: `opsgate_oidc_state=${victimState.value}` } });
    expect(crossed.json()).toMatchObject({ code: 'OIDC_STATE_MISMATCH' });
    // The browser that started it completes it.
    const done = await app.inject({ method: 'GET', url: attacker.path, headers: { cookie: attacker.stateCookie } });
    expect(done.statusCode).toBe(200);
    const events = await new AuditLog(handle.store).list();
    expect(events.filter((e) => e.type === 'sso_signed_in')).toEqual([
      expect.objectContaining({ actor: 'user:dave', payload: expect.objectContaining({ username: 'dave', roles: ['user'] }) }),
    ]);
    expect(events.find((e) => e.type === 'user_created')).toMatchObject({ actor: 'user:dave', payload: { username: 'dave', via: 'sso' } });
  });

  it('teams from the claims reach the Cedar policy: a finance approver is refused a transfer, another approver is not', async () => {
    for (const who of ['erin', 'carol']) expect((await complete(who)).statusCode).toBe(200);
    const users = new UserRepository(handle.store);
    const identity = async (name: string) => {
      const user = (await users.findByName(name))!;
      return { userId: user.id, username: user.username, roles: user.roles };
    };
    const alice = await identity('alice');
    const session = await runtime.startSession({ agent: 'ledger', identity: alice });
    const turn = await runtime.send(session.id, 'pay bob 30', alice);
    expect(turn.interrupt).toMatchObject({ tool: 'transfer', eligibleApprovers: ['alice', 'carol'] });
    await expect(
      runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, await identity('erin')),
    ).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      fields: { policyId: 'finance-team-does-not-approve-transfers' },
    });
    const done = await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, await identity('carol'));
    expect(done.status).toBe('completed');
    expect(recorder.transfers).toHaveLength(1);
  });

  it('refuses half a configuration and a role map naming no role', () => {
    expect(() => oidcConfigFromEnv({ OPSGATE_OIDC_ISSUER: 'https://id.example' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() =>
      oidcConfigFromEnv({
        OPSGATE_OIDC_ISSUER: 'https://id.example',
        OPSGATE_OIDC_CLIENT_ID: 'a',
        OPSGATE_OIDC_CLIENT_SECRET: 'b',
        OPSGATE_OIDC_REDIRECT_URI: 'https://ops.example/api/oidc/callback',
        OPSGATE_OIDC_ROLE_MAP: 'ops=root',
      }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
