import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { SLACK_ACTIONS_PATH } from '../../src/server/integrations/index.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../web/fake-slack.ts';
import { startWebServer, type WebServer } from '../web/web-harness.ts';

const BOT_TOKEN = 'xoxb-SENTINEL-BOT-123';
const SIGNING_SECRET = 'SENTINEL-signing-secret-0123456789';
const OTHER_SECRET = 'SENTINEL-admins-own-secret-987654';
// A closed local port: the card is never delivered, only stored.
const TEAMS_HOOK = 'http://127.0.0.1:9/webhookb2/SENTINEL-teams-hook';
const CHANNEL = 'C0APPROVAL';
const HOUR = 3_600_000;
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 });

function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

// Review 2026-11-26: H2-new (an admin re-links alice's Slack identity to his own account and approves
// his own call as alice; nothing audited), M1-new (a disabled user still approves through Slack),
// M3-new (Slack and Teams secrets in plaintext in the store), L5-new (Slack team_id never checked).
describe('who decides through Slack: the identity rules, the hold after a change, secrets at rest', () => {
  let slack: FakeSlack;
  let server: WebServer;
  let adminToken: string;
  let clockShift = 0;
  const people = {} as Record<'john' | 'admin' | 'alice', Identity>;
  let pressCount = 0;

  async function admin(
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  /** A signed button press; returns what opsgate answered the presser (ephemeral), if anything. */
  async function press(
    member: string,
    message: PostedMessage,
    options: { secret?: string; team?: string; action?: 'opsgate_approve' | 'opsgate_reject' } = {},
  ): Promise<{ status: number; reply: () => string | undefined }> {
    const buttons = (message.blocks.find((b) => b.type === 'actions')?.elements ?? []) as Array<{ action_id: string; value: string }>;
    const button = buttons.find((b) => b.action_id === (options.action ?? 'opsgate_approve'))!;
    const id = `press-${++pressCount}`;
    const team = options.team ?? 'T0OPSGATE';
    const payload = {
      type: 'block_actions',
      user: { id: member, team_id: team },
      team: { id: team },
      actions: [{ type: 'button', action_id: options.action ?? 'opsgate_approve', block_id: 'opsgate_decision', value: button.value }],
      response_url: slack.responseUrl(id),
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${server.url}${SLACK_ACTIONS_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(options.secret ?? SIGNING_SECRET, timestamp, body),
      },
      body,
    });
    await response.text();
    return { status: response.status, reply: () => slack.responses.get(id)?.[0]?.text as string | undefined };
  }

  async function asks(who: Identity, access: string): Promise<{ callId: string; message: PostedMessage }> {
    const before = slack.messages.length;
    const sessionId = (await server.runtime.startSession({ agent: 'access', identity: who })).id;
    const turn = await server.runtime.callTool(
      sessionId,
      { tool: 'grant_access_to_user', args: { username: who.username, access_name: access, reason: 'chat identity' } },
      who,
    );
    if (turn.interrupt?.type !== 'approval') throw new Error('no approval');
    await poll(() => slack.messages.length).toBe(before + 1);
    return { callId: turn.interrupt.callId, message: slack.messages[before]! };
  }

  const statusOf = async (callId: string) =>
    (await server.store.db.selectFrom('tool_calls').select('status').where('id', '=', callId).executeTakeFirst())?.status;

  beforeAll(async () => {
    slack = await startFakeSlack({
      botToken: BOT_TOKEN,
      members: [
        { id: 'U0ALICE', email: 'alice@example.com', emailConfirmed: true },
        { id: 'U0ADMIN2', email: 'admin-second@example.com', emailConfirmed: true },
        { id: 'U0JOHN', email: 'john@example.com', emailConfirmed: true },
      ],
    });
    server = await startWebServer({
      chat: { slackApiUrl: slack.apiUrl, changeHoldMs: 24 * HOUR, now: () => new Date(Date.now() + clockShift) },
    });
    const users = new UserRepository(server.store);
    adminToken = (await users.createToken('admin', 'chat-setup')).token;
    for (const [key, name] of [
      ['john', 'john_doe'],
      ['admin', 'admin'],
      ['alice', 'alice'],
    ] as const) {
      const record = (await users.findByName(name))!;
      people[key] = { userId: record.id, username: name, roles: record.roles, channel: 'web' };
    }
    expect(
      (await admin('PUT', '/api/admin/chat/slack', { botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, channel: CHANNEL })).status,
    ).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/teams', { webhookUrl: TEAMS_HOOK })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack/links/alice', { slackUserId: 'U0ALICE' })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack/links/john_doe', { slackUserId: 'U0JOHN' })).status).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
    await slack?.close();
  });

  /** The self-link flow: signed in as `username`, ask for a code, read it in Slack, confirm it. */
  async function linkOwnAccount(username: string, memberId: string): Promise<void> {
    const token = (await new UserRepository(server.store).createToken(username, `own-${Date.now()}`)).token;
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const before = slack.messages.length;
    expect((await post('/api/me/chat/slack/link', { slackUserId: memberId })).status).toBe(200);
    const dm = slack.messages.slice(before).find((message) => message.channel === `D${memberId.slice(1)}`);
    const code = /link code is (\d{6})/.exec(dm?.text ?? '')?.[1];
    expect((await post('/api/me/chat/slack/link/confirm', { code })).status).toBe(200);
  }

  it('M3: the bot token, signing secret and Teams webhook are encrypted at rest and never come back from the API', async () => {
    const chatRows = await (server.store.db as unknown as Kysely<{ chat_integrations: { name: string; settings: string } }>)
      .selectFrom('chat_integrations')
      .selectAll()
      .execute();
    const rows = JSON.stringify(chatRows);
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, TEAMS_HOOK]) expect(rows).not.toContain(secret);
    const sealed = await server.store.db.selectFrom('secrets').select(['name', 'value']).where('name', 'like', 'chat.%').execute();
    expect(sealed.map((row) => row.name).sort()).toEqual(['chat.slack.botToken', 'chat.slack.signingSecret', 'chat.teams.webhookUrl']);
    for (const row of sealed) expect(row.value).toMatch(/^enc:v1:/);
    const shown = JSON.stringify((await admin('GET', '/api/admin/chat')).json);
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, TEAMS_HOOK]) expect(shown).not.toContain(secret);
    // Nor in the audit of the change.
    const audit = JSON.stringify(await new AuditLog(server.store).list());
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, TEAMS_HOOK]) expect(audit).not.toContain(secret);
  });

  it("H2: a link an admin set for alice never approves another person's call, not even days later; she can still reject through it", async () => {
    const { callId, message } = await asks(people.john, 'DB_WRITE_PROD');
    const held = await press('U0ALICE', message);
    expect(held.status).toBe(200);
    await poll(held.reply).toMatch(/issued by someone else/);
    expect(await statusOf(callId)).toBe('proposed');
    clockShift = 25 * HOUR;
    const later = await press('U0ALICE', message);
    expect(later.status).toBe(200);
    await poll(later.reply).toMatch(/alice may not approve .*issued by someone else/);
    expect(await statusOf(callId)).toBe('proposed');
    expect((await press('U0ALICE', message, { action: 'opsgate_reject' })).status).toBe(200);
    await poll(() => statusOf(callId)).toBe('rejected');
  });

  it('H2: an admin who re-links alice to his own Slack account cannot approve his own call as alice, and the re-link is audited', async () => {
    const { callId, message } = await asks(people.admin, 'DB_WRITE_PROD');
    expect((await admin('PUT', '/api/admin/chat/slack/links/alice', { slackUserId: 'U0ADMIN2' })).status).toBe(200);
    const asAlice = await press('U0ADMIN2', message);
    expect(asAlice.status).toBe(200);
    await poll(asAlice.reply).toMatch(/alice may not approve .*issued by someone else/);
    expect(await statusOf(callId)).toBe('proposed');
    const events = await new AuditLog(server.store).list();
    expect(events.filter((event) => event.type === 'chat_link_changed').at(-1)).toMatchObject({
      actor: 'user:admin',
      payload: { provider: 'slack', username: 'alice', from: { slackUserId: 'U0ALICE' }, to: { slackUserId: 'U0ADMIN2' }, by: 'admin' },
    });
    expect(events.find((event) => event.type === 'approval_refused' && event.payload.callId === callId)?.payload).toMatchObject({
      channel: 'slack',
      credentialIssuedBy: 'admin',
      policyId: 'no-approval-with-a-borrowed-credential',
    });
    expect((await admin('PUT', '/api/admin/chat/slack/links/alice', { slackUserId: 'U0ALICE' })).status).toBe(200);
    clockShift += 25 * HOUR;
  });

  it("H2: an admin who replaces the signing secret signs presses himself, but within the hold they cannot approve another person's call", async () => {
    // alice's link is her own here, so only the new secret can be what refuses the press.
    await linkOwnAccount('alice', 'U0ALICE');
    const { callId, message } = await asks(people.admin, 'DB_WRITE_PROD');
    expect((await admin('PUT', '/api/admin/chat/slack', { signingSecret: OTHER_SECRET, channel: CHANNEL })).status).toBe(200);
    const forgedByAdmin = await press('U0ALICE', message, { secret: OTHER_SECRET });
    expect(forgedByAdmin.status).toBe(200);
    await poll(forgedByAdmin.reply).toMatch(/issued by someone else/);
    expect(await statusOf(callId)).toBe('proposed');
    const change = (await new AuditLog(server.store).list()).filter((event) => event.type === 'chat_settings_changed').at(-1);
    expect(change).toMatchObject({ actor: 'user:admin', payload: { provider: 'slack', secretsChanged: ['signingSecret'], by: 'admin' } });
    clockShift += 25 * HOUR;
  });

  it('L5: a press from another Slack workspace is refused', async () => {
    const { callId, message } = await asks(people.john, 'DB_WRITE_DEV');
    const foreign = await press('U0ALICE', message, { secret: OTHER_SECRET, team: 'T0ELSEWHERE' });
    expect(foreign.status).toBe(200);
    await poll(foreign.reply).toMatch(/another Slack workspace \(T0ELSEWHERE\)/);
    expect(await statusOf(callId)).toBe('proposed');
  });

  it('M1: a disabled user cannot decide through Slack', async () => {
    const { callId, message } = await asks(people.john, 'DB_WRITE_PROD');
    expect((await admin('POST', '/api/users/alice/disable')).status).toBe(200);
    const disabled = await press('U0ALICE', message, { secret: OTHER_SECRET });
    expect(disabled.status).toBe(200);
    await poll(disabled.reply).toMatch(/opsgate account alice .* is disabled/);
    expect(await statusOf(callId)).toBe('proposed');
    expect((await admin('POST', '/api/users/alice/enable')).status).toBe(200);
  });

  it('H2: alice links her own Slack account with the code the bot sends her there; a link she confirmed herself needs no hold', async () => {
    const users = new UserRepository(server.store);
    const asAlice = (await users.createToken('alice', 'own')).token;
    const minted = (
      await users.createToken('alice', 'minted', { scopes: ['use'], by: { actor: 'user:admin', username: 'admin', via: 'web' } })
    ).token;
    const call = async (token: string, path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    expect(await call(minted, '/api/me/chat/slack/link', { slackUserId: 'U0ALICE2' })).toMatchObject({
      status: 403,
      json: { code: 'CHAT_LINK_NEEDS_OWN_SIGN_IN' },
    });
    const before = slack.messages.length;
    expect((await call(asAlice, '/api/me/chat/slack/link', { slackUserId: 'U0ALICE2' })).status).toBe(200);
    const dm = slack.messages.slice(before).find((message) => message.channel === 'D0ALICE2');
    const code = /link code is (\d{6})/.exec(dm?.text ?? '')?.[1];
    expect(code).toBeDefined();
    const wrong = code === '000000' ? '000001' : '000000';
    expect(await call(asAlice, '/api/me/chat/slack/link/confirm', { code: wrong })).toMatchObject({
      status: 400,
      json: { code: 'CHAT_LINK_CODE_INVALID' },
    });
    expect(await call(asAlice, '/api/me/chat/slack/link/confirm', { code })).toMatchObject({ status: 200, json: { linked: 'U0ALICE2' } });
    const linked = (await new AuditLog(server.store).list()).filter((event) => event.type === 'chat_link_changed').at(-1);
    expect(linked).toMatchObject({
      actor: 'user:alice',
      payload: { username: 'alice', to: { slackUserId: 'U0ALICE2' }, confirmedInSlack: true },
    });
    expect(JSON.stringify(linked)).not.toContain(code);
    // At once, with no hold: the link is hers.
    const { callId, message } = await asks(people.john, 'DB_WRITE_PROD');
    expect((await press('U0ALICE2', message, { secret: OTHER_SECRET })).status).toBe(200);
    await poll(() => statusOf(callId)).toBe('executed');
  });
});
