import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../testing/fixed-clock.ts';
import { sqliteTestStore, type TestStore } from '../../testing/test-stores.ts';
import { OAuthGrants, ResourceTokens } from './oauth-grants.ts';
import { type TokenIdentity, UserRepository } from './users.ts';
import { VERIFIED_TOKEN_TTL_MS } from './verified-tokens.ts';

const RESOURCE = 'http://127.0.0.1:8790/mcp';

/** Counts how often the store is asked to verify a token. */
class CountingUsers extends UserRepository {
  lookups = 0;
  override async authenticateToken(token: string): Promise<TokenIdentity | undefined> {
    this.lookups++;
    return super.authenticateToken(token);
  }
}

describe('verified bearer tokens (the MCP endpoints ask the store once per token and moment)', () => {
  let test: TestStore;
  let clock: ReturnType<typeof fixedClock>;
  let users: CountingUsers;
  let tokens: ResourceTokens;
  let token: string;
  let tokenId: number;
  let aliceId: number;

  beforeEach(async () => {
    test = await sqliteTestStore.create();
    clock = fixedClock(new Date().toISOString());
    users = new CountingUsers(test.store, clock);
    tokens = new ResourceTokens(test.store, users, new OAuthGrants(test.store, users, clock), clock);
    aliceId = (await users.create({ username: 'alice', roles: ['user'] })).id;
    ({ token, id: tokenId } = await users.createToken('alice', 'ide'));
  });
  afterEach(() => test.dispose());

  it('verifies a token once for many requests within its moment, then asks the store again', async () => {
    for (let request = 0; request < 50; request++) expect((await tokens.identify(token, RESOURCE))?.identity.username).toBe('alice');
    expect(users.lookups).toBe(1);
    clock.advance(VERIFIED_TOKEN_TTL_MS);
    await tokens.identify(token, RESOURCE);
    expect(users.lookups).toBe(2);
  });

  it('refuses a token revoked, or a person disabled, in this process at once', async () => {
    await tokens.identify(token, RESOURCE);
    await users.revokeToken(aliceId, tokenId);
    expect(await tokens.identify(token, RESOURCE)).toBeUndefined();
    const second = await users.createToken('alice', 'second');
    expect(await tokens.identify(second.token, RESOURCE)).toBeDefined();
    await users.disable('alice');
    expect(await tokens.identify(second.token, RESOURCE)).toBeUndefined();
  });

  it('refuses a token another process revoked once the moment has passed', async () => {
    await tokens.identify(token, RESOURCE);
    // Another process's change: straight to the store, this process's change counter does not move.
    await test.store.db.deleteFrom('api_tokens').where('id', '=', tokenId).execute();
    clock.advance(VERIFIED_TOKEN_TTL_MS - 1);
    expect(await tokens.identify(token, RESOURCE)).toBeDefined();
    clock.advance(1);
    expect(await tokens.identify(token, RESOURCE)).toBeUndefined();
  });

  it('never believes a token past its expiry, and never keeps a refusal', async () => {
    const brief = await users.createToken('alice', 'brief', { expiresInMs: VERIFIED_TOKEN_TTL_MS / 4 });
    await tokens.identify(brief.token, RESOURCE);
    clock.advance(VERIFIED_TOKEN_TTL_MS / 4);
    await expect(tokens.identify(brief.token, RESOURCE)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    const lookups = users.lookups;
    expect(await tokens.identify('ogt_not-a-token', RESOURCE)).toBeUndefined();
    expect(await tokens.identify('ogt_not-a-token', RESOURCE)).toBeUndefined();
    expect(users.lookups).toBe(lookups + 2);
  });
});
