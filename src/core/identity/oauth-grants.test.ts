import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../testing/fixed-clock.ts';
import { sqliteTestStore, type TestStore } from '../../testing/test-stores.ts';
import { OAUTH_CODE_TTL_MS, OAuthGrants, ResourceTokens, s256Challenge, scopesFromText } from './oauth-grants.ts';
import { UserRepository } from './users.ts';

// A pair made by pkce-challenge, the library the MCP SDK's client uses (an implementation not ours).
const VERIFIER = 'OzK_Ub0FdhDT8_wklTyWdkuLuXdBrLV2cK7k3bzBU1z';
const CHALLENGE = '4UnwW6IUllfMVLjoSY4sDeraiV5Z7n0ScIlTCp-hM64';
const RESOURCE = 'http://127.0.0.1:8080/mcp';

describe('OAuthGrants', () => {
  let test: TestStore;
  let clock: ReturnType<typeof fixedClock>;
  let users: UserRepository;
  let grants: OAuthGrants;
  let code: string;
  let clientId: string;

  beforeEach(async () => {
    test = await sqliteTestStore.create();
    clock = fixedClock(new Date().toISOString());
    users = new UserRepository(test.store, clock);
    grants = new OAuthGrants(test.store, users, clock);
    const person = await users.create({ username: 'alice', roles: ['user'] });
    const client = await grants.registerClient({ clientName: 'ide', redirectUris: ['http://127.0.0.1:9/cb'], metadata: {} });
    clientId = client.clientId;
    code = await grants.issueCode({
      clientId,
      userId: person.id,
      codeChallenge: CHALLENGE,
      redirectUri: 'http://127.0.0.1:9/cb',
      resource: RESOURCE,
      scopes: ['use'],
    });
  });
  afterEach(() => test.dispose());

  it('computes the S256 challenge the SDK client computes', () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });

  it('maps OAuth scope text to token scopes; nothing named is use; unknown scopes are refused', () => {
    expect(scopesFromText(undefined)).toEqual(['use']);
    expect(scopesFromText('approve use')).toEqual(['use', 'approve']);
    expect(() => scopesFromText('root')).toThrow(/unknown scope root/);
  });

  it('exchanges a code once for a token bound to its resource; plain API tokens stay unbound', async () => {
    const issued = await grants.exchangeCode({ clientId, code, codeVerifier: VERIFIER, resource: RESOURCE });
    expect(issued.scopes).toEqual(['use']);
    expect(await grants.resourceOf(issued.accessToken)).toBe(RESOURCE);
    const tokens = new ResourceTokens(test.store, users, grants, clock);
    expect((await tokens.identify(issued.accessToken, RESOURCE))?.identity.username).toBe('alice');
    expect(await tokens.identify(issued.accessToken, 'http://localhost:8080/mcp')).toBeUndefined();
    const pasted = (await users.createToken('alice', 'pasted')).token;
    expect(await grants.resourceOf(pasted)).toBeUndefined();
    expect((await tokens.identify(pasted, 'http://localhost:8080/mcp'))?.identity.username).toBe('alice');
    await expect(grants.exchangeCode({ clientId, code, codeVerifier: VERIFIER })).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('refuses an expired code, another client, another resource and a wrong verifier, each with its RFC error', async () => {
    await expect(grants.exchangeCode({ clientId: 'ogc_other', code, codeVerifier: VERIFIER })).rejects.toMatchObject({
      code: 'invalid_grant',
    });
    await expect(grants.exchangeCode({ clientId, code, codeVerifier: VERIFIER, resource: 'https://x.example/mcp' })).rejects.toMatchObject({
      code: 'invalid_target',
    });
    await expect(grants.exchangeCode({ clientId, code, codeVerifier: `${VERIFIER}x` })).rejects.toMatchObject({ code: 'invalid_grant' });
    clock.advance(OAUTH_CODE_TTL_MS);
    await expect(grants.exchangeCode({ clientId, code, codeVerifier: VERIFIER })).rejects.toThrow(/expired/);
  });
});
