import { createHmac } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCliIdentity } from '../../src/cli/cli-identity.ts';
import { userActor } from '../../src/core/audit/index.ts';
import { type Identity, throughChannel } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { SLACK_ACTIONS_PATH } from '../../src/server/integrations/index.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../web/fake-slack.ts';
import { PASSWORD, startWebServer, type WebServer } from '../web/web-harness.ts';

// Issue 29 "done when": every door × (requester, borrowed token, approver, disabled user, admin),
// on the same call: john_doe's high-risk request for DB_WRITE_PROD. Each door turns its own
// credential into an identity the way it does in production (the login cookie and bearer tokens
// through the server's routes, the CLI's resolver, a token as the MCP hosts and the gateway read
// it, a signed Slack press through the public endpoint), and every one of them ends in the one
// authorizer. A Teams card only links to opsgate, so its decision is the web's.
// test/security/decision-matrix.test.ts covers the decision kinds (approve, modify, reject) per channel.

type Door = 'web' | 'teams-link' | 'rest' | 'cli-chat' | 'cli-approvals' | 'mcp-stdio' | 'mcp-http' | 'gateway' | 'slack';
type Persona = 'requester' | 'borrowed-token' | 'approver' | 'disabled-user' | 'admin';
const DOORS: readonly Door[] = ['web', 'teams-link', 'rest', 'cli-chat', 'cli-approvals', 'mcp-stdio', 'mcp-http', 'gateway', 'slack'];
const PERSONAS: readonly Persona[] = ['requester', 'borrowed-token', 'approver', 'disabled-user', 'admin'];
const BOT_TOKEN = 'xoxb-matrix-1234';
const SIGNING_SECRET = 'matrix-signing-secret-0123456789';
const HOUR = 3_600_000;

/** Approvers and admins approve another person's high-risk call; over MCP elicitation nobody does (it is the client's word). */
function expected(door: Door, persona: Persona): 'executed' | 'refused' {
  if (persona !== 'approver' && persona !== 'admin') return 'refused';
  return door === 'mcp-stdio' || door === 'mcp-http' ? 'refused' : 'executed';
}

describe("every door × every kind of person, on another person's high-risk call", () => {
  let slack: FakeSlack;
  let server: WebServer;
  let users: UserRepository;
  let clockShift = 0;
  const members: Record<string, string> = { john_doe: 'U0JOHN', alice: 'U0ALICE', admin: 'U0ADMIN' };
  /** The admin's second Slack account, which he links to alice (review H2-new). */
  const ADMINS_SECOND_ACCOUNT = 'U0ADMIN2';

  const api = (path: string, init: RequestInit) => fetch(`${server.url}${path}`, init);

  async function login(username: string): Promise<{ cookie: string; csrf: string }> {
    const response = await api('/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: PASSWORD }),
    });
    const body = (await response.json()) as { csrfToken?: string };
    return { cookie: (response.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: body.csrfToken ?? '' };
  }

  async function ownToken(username: string): Promise<string> {
    return (await users.createToken(username, `matrix-${Date.now()}`)).token;
  }

  async function borrowedToken(): Promise<string> {
    return (
      await users.createToken('alice', `minted-${Date.now()}`, {
        scopes: ['use', 'approve'],
        by: { actor: userActor('admin'), username: 'admin', via: 'web' },
      })
    ).token;
  }

  async function setLink(username: string, by: string): Promise<void> {
    const admin = await ownToken('admin');
    const response = await api(`/api/admin/chat/slack/links/${username}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slackUserId: by === 'hijack' ? ADMINS_SECOND_ACCOUNT : members[username] }),
    });
    expect(response.status).toBe(200);
  }

  async function propose(): Promise<{ sessionId: string; callId: string; message: PostedMessage }> {
    const john = (await users.findByName('john_doe'))!;
    const identity: Identity = { userId: john.id, username: 'john_doe', roles: john.roles, channel: 'web' };
    const before = slack.messages.length;
    const session = await server.runtime.startSession({ agent: 'access', identity });
    const turn = await server.runtime.callTool(
      session.id,
      { tool: 'grant_access_to_user', args: { username: 'john_doe', access_name: 'DB_WRITE_PROD', reason: 'matrix' } },
      identity,
    );
    if (turn.interrupt?.type !== 'approval') throw new Error('expected an approval');
    await expect.poll(() => slack.messages.length, { timeout: 15_000 }).toBe(before + 1);
    return { sessionId: session.id, callId: turn.interrupt.callId, message: slack.messages[before]! };
  }

  const statusOf = async (callId: string) =>
    (await server.store.db.selectFrom('tool_calls').select('status').where('id', '=', callId).executeTakeFirst())?.status;

  function cliIo(token: string) {
    return { stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from(['']), env: { OPSGATE_TOKEN: token } };
  }

  /** The person's credential for a door, taken before a disabled user is disabled. */
  async function credentialFor(door: Door, persona: Persona): Promise<string> {
    const username = persona === 'requester' ? 'john_doe' : persona === 'admin' ? 'admin' : 'alice';
    if (door === 'slack') {
      if (persona === 'borrowed-token') await setLink('alice', 'hijack');
      return persona === 'borrowed-token' ? ADMINS_SECOND_ACCOUNT : members[username]!;
    }
    if (persona === 'borrowed-token') return borrowedToken();
    if (door === 'web' || door === 'teams-link') return JSON.stringify(await login(username));
    return ownToken(username);
  }

  async function decideThrough(door: Door, credential: string, sessionId: string, callId: string, message: PostedMessage): Promise<void> {
    const decide = async (identity: Identity | undefined) => {
      if (!identity) throw new Error('no identity');
      await server.runtime.decide(sessionId, { type: 'approve', callId }, identity);
    };
    switch (door) {
      case 'web':
      case 'teams-link': {
        const cookie = credential.startsWith('{') ? (JSON.parse(credential) as { cookie: string; csrf: string }) : undefined;
        const headers: Record<string, string> = cookie
          ? { cookie: cookie.cookie, 'x-csrf-token': cookie.csrf, origin: server.url }
          : { authorization: `Bearer ${credential}` };
        await (
          await api(`/api/approvals/${callId}/approve`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{}',
          })
        ).text();
        return;
      }
      case 'rest':
        await (
          await api(`/api/sessions/${sessionId}/decisions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'approve', callId }),
          })
        ).text();
        return;
      case 'cli-chat': {
        const { identity } = await resolveCliIdentity(cliIo(credential), users, undefined);
        await server.runtime.send(sessionId, 'yes', identity);
        return;
      }
      case 'cli-approvals':
        return decide((await resolveCliIdentity(cliIo(credential), users, undefined)).identity);
      case 'mcp-stdio':
        return decide(throughChannel((await resolveCliIdentity(cliIo(credential), users, undefined)).identity, 'mcp-elicitation'));
      case 'mcp-http': {
        const found = (await users.authenticateToken(credential))?.identity;
        return decide(found && throughChannel(found, 'mcp-elicitation'));
      }
      case 'gateway': {
        const found = (await users.authenticateToken(credential))?.identity;
        return decide(found && throughChannel(found, 'gateway'));
      }
      case 'slack': {
        const buttons = (message.blocks.find((b) => b.type === 'actions')?.elements ?? []) as Array<{ action_id: string; value: string }>;
        const payload = {
          type: 'block_actions',
          user: { id: credential, team_id: 'T0OPSGATE' },
          team: { id: 'T0OPSGATE' },
          actions: [{ type: 'button', action_id: 'opsgate_approve', value: buttons.find((b) => b.action_id === 'opsgate_approve')!.value }],
          response_url: slack.responseUrl(`matrix-${callId}`),
        };
        const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
        const timestamp = Math.floor(Date.now() / 1000);
        const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
        const response = await api(SLACK_ACTIONS_PATH, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-slack-request-timestamp': String(timestamp),
            'x-slack-signature': signature,
          },
          body,
        });
        expect(response.status).toBe(200);
        // The press is acknowledged at once and decided beside it: wait for its answer or the call to run.
        await expect
          .poll(async () => (await statusOf(callId)) === 'executed' || slack.responses.has(`matrix-${callId}`), { timeout: 15_000 })
          .toBe(true);
        return;
      }
    }
  }

  beforeAll(async () => {
    slack = await startFakeSlack({
      botToken: BOT_TOKEN,
      members: [...Object.values(members), ADMINS_SECOND_ACCOUNT].map((id) => ({
        id,
        email: `${id.toLowerCase()}@example.com`,
        emailConfirmed: true,
      })),
    });
    // Links here are set through the admin route and judged after a 24 h hold, so each persona's own
    // rules decide; by default such a link never approves (test/security/chat-identity.test.ts).
    server = await startWebServer({
      chat: { slackApiUrl: slack.apiUrl, linkHoldMs: 24 * HOUR, now: () => new Date(Date.now() + clockShift) },
    });
    users = new UserRepository(server.store);
    const admin = await ownToken('admin');
    const setUp = await api('/api/admin/chat/slack', {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, channel: 'C0MATRIX' }),
    });
    expect(setUp.status).toBe(200);
    for (const username of Object.keys(members)) await setLink(username, 'admin');
    // The links and the app's secrets were set a day ago: past the hold.
    clockShift = 25 * HOUR;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await slack?.close();
  });

  const rows = DOORS.flatMap((door) => PERSONAS.map((persona) => [door, persona] as const));
  it.each(rows)('%s × %s', async (door, persona) => {
    const { sessionId, callId, message } = await propose();
    const credential = await credentialFor(door, persona);
    if (persona === 'disabled-user') await users.disable('alice');
    try {
      await decideThrough(door, credential, sessionId, callId, message).catch(() => undefined);
    } finally {
      if (persona === 'disabled-user') await users.enable('alice');
      if (door === 'slack' && persona === 'borrowed-token') {
        await setLink('alice', 'admin');
        clockShift += 25 * HOUR;
      }
    }
    const status = await statusOf(callId);
    expect(status === 'executed' ? 'executed' : 'refused', `${door} × ${persona}: call is ${status}`).toBe(expected(door, persona));
    // The invariant: the requester's own high-risk call never runs on his own decision.
    if (persona === 'requester') expect(status).toBe('proposed');
  });
});
