import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { SLACK_ACTIONS_PATH } from '../../src/server/integrations/index.ts';
import { type FakeSlack, startFakeSlack } from './fake-slack.ts';
import { startWebServer, type WebServer } from './web-harness.ts';

const BOT_TOKEN = 'xoxb-test-1234-abcdefgh';
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const CHANNEL = 'C0APPROVAL';
const PUBLIC_URL = 'https://opsgate.example.com';
/** The server's own address (`OPSGATE_PUBLIC_URL`), for links when no admin saved one. */
const SERVER_URL = 'https://ops-from-env.example.com';
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 });

/** Slack's request signature: `v0=` + HMAC-SHA256 of `v0:{timestamp}:{body}` (api.slack.com/authentication/verifying-requests-from-slack). */
function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/**
 * Issue 22, approvals where people work: Slack end to end against a local Slack API that checks
 * requests as Slack documents them, and Teams' incoming webhook on a local server.
 */
describe('approvals in Slack and Teams (local Slack API, local Teams webhook)', () => {
  let slack: FakeSlack;
  let server: WebServer;
  let teamsHook: Server;
  let teamsUrl: string;
  const teamsPosts: Array<Record<string, unknown>> = [];
  let teamsRefuses = false;
  let adminToken: string;
  let john: Identity;

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

  /** A button press as Slack sends it: form-encoded `payload`, signed. */
  function press(
    slackUserId: string,
    message: { blocks: Array<Record<string, unknown>> },
    action: 'opsgate_approve' | 'opsgate_reject',
    responseId: string,
  ): { body: string; headers: Record<string, string> } {
    const buttons = (message.blocks.find((b) => b.type === 'actions')?.elements ?? []) as Array<{ action_id: string; value: string }>;
    const button = buttons.find((b) => b.action_id === action)!;
    const payload = {
      type: 'block_actions',
      user: { id: slackUserId, team_id: 'T0OPSGATE' },
      team: { id: 'T0OPSGATE' },
      actions: [{ type: 'button', action_id: action, block_id: 'opsgate_decision', value: button.value, action_ts: '1700000000.1' }],
      response_url: slack.responseUrl(responseId),
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, body),
      },
    };
  }

  async function send(request: { body: string; headers: Record<string, string> }): Promise<{ status: number; text: string }> {
    const response = await fetch(`${server.url}${SLACK_ACTIONS_PATH}`, { method: 'POST', headers: request.headers, body: request.body });
    return { status: response.status, text: await response.text() };
  }

  /** john asks for a write access (high risk: he may not approve it himself). */
  async function johnAsks(...messages: string[]): Promise<{ sessionId: string; callId: string }> {
    const sessionId = (await server.runtime.startSession({ agent: 'access', identity: john })).id;
    let result = await server.runtime.send(sessionId, messages[0]!, john);
    for (const text of messages.slice(1)) result = await server.runtime.send(sessionId, text, john);
    if (result.interrupt?.type !== 'approval') throw new Error('no approval');
    return { sessionId, callId: result.interrupt.callId };
  }

  async function statusOf(callId: string): Promise<string | undefined> {
    const row = await server.store.db.selectFrom('tool_calls').select('status').where('id', '=', callId).executeTakeFirst();
    return row?.status;
  }

  beforeAll(async () => {
    slack = await startFakeSlack({
      botToken: BOT_TOKEN,
      members: [
        { id: 'U0ALICE', email: 'alice@example.com', emailConfirmed: true },
        { id: 'U0ADMIN', email: 'admin@example.com', emailConfirmed: true },
        { id: 'U0JOHN', email: 'john@example.com', emailConfirmed: true },
        { id: 'U0MALLORY', email: 'alice2@example.com', emailConfirmed: false },
        { id: 'U0STRANGER', email: 'stranger@example.com', emailConfirmed: true },
        { id: 'U0CAROL', email: 'carol@example.com', emailConfirmed: true },
      ],
    });
    teamsHook = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (teamsRefuses) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
        return;
      }
      teamsPosts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('1');
    });
    await new Promise<void>((resolve) => teamsHook.listen(0, '127.0.0.1', resolve));
    const address = teamsHook.address();
    teamsUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhookb2/opsgate`;
    // No hold after a link or secret change here: test/security/chat-identity.test.ts tests the hold.
    server = await startWebServer({ chat: { slackApiUrl: slack.apiUrl, publicUrl: SERVER_URL, changeHoldMs: 0, linkHoldMs: 0 } });
    const users = new UserRepository(server.store);
    adminToken = (await users.createToken('admin', 'chat-setup')).token;
    const record = (await users.findByName('john_doe'))!;
    john = { userId: record.id, username: record.username, roles: record.roles, channel: 'web' };
  });

  afterAll(async () => {
    await server?.close();
    await slack?.close();
    await new Promise<void>((resolve) => teamsHook?.close(() => resolve()));
  });

  it('an admin sets Slack and Teams up; secrets never come back; bad settings are refused in plain words', async () => {
    const bad = await admin('PUT', '/api/admin/chat/slack', { botToken: 'not-a-token', signingSecret: SIGNING_SECRET, channel: CHANNEL });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/starts with "xoxb-"/);
    expect(
      (await admin('PUT', '/api/admin/chat/slack', { botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, channel: CHANNEL })).status,
    ).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/common', { publicUrl: PUBLIC_URL })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/teams', { webhookUrl: teamsUrl })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack/links/alice', { slackUserId: 'U0ALICE' })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack/links/admin', { email: 'admin@example.com' })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack/links/john_doe', { slackUserId: 'U0JOHN' })).status).toBe(200);
    const shown = await admin('GET', '/api/admin/chat');
    expect(shown.json.slack).toEqual({ enabled: true, channel: CHANNEL, botTokenSet: true, signingSecretSet: true });
    expect(JSON.stringify(shown.json)).not.toContain(BOT_TOKEN);
    expect(JSON.stringify(shown.json)).not.toContain(SIGNING_SECRET);
    expect(shown.json.links).toEqual(expect.arrayContaining([{ username: 'admin', slackUserId: '', email: 'admin@example.com' }]));
    // Without authentication, or as a plain user, nothing.
    expect((await fetch(`${server.url}/api/admin/chat`)).status).toBe(401);
  });

  it('a request posts the readable preview with Approve / Reject; alice approves in Slack; the call runs once and the message says who decided', async () => {
    const { callId } = await johnAsks('I need database access', 'Production, write');
    await poll(() => slack.messages.length).toBe(1);
    const message = slack.messages[0]!;
    expect(message.channel).toBe(CHANNEL);
    const text = JSON.stringify(message.blocks);
    // Issue 31, item 4: the notification says what is asked, and Approve asks "are you sure?" on a high request.
    expect(message.text).toMatch(/^john_doe asks: DB_WRITE_PROD for john_doe, \d+ days · high$/);
    expect(text).not.toContain('grant_access_to_user');
    const approveButton = (message.blocks.find((b) => b.type === 'actions')!.elements as Array<Record<string, unknown>>)[0]!;
    expect(approveButton).toMatchObject({ action_id: 'opsgate_approve', confirm: { confirm: { text: 'Yes, approve' } } });
    expect(text).toContain('DB_WRITE_PROD');
    expect(text).toContain('Asked by *john_doe*');
    expect(text).toContain(`${PUBLIC_URL}/#/sessions/`);
    expect(text).not.toMatch(/argsHash|"access_name":/);
    // Teams got the same preview as an Adaptive Card with a link to decide in opsgate.
    await poll(() => teamsPosts.length).toBe(1);
    const card = (teamsPosts[0]!.attachments as Array<{ contentType: string; content: Record<string, unknown> }>)[0]!;
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content).toMatchObject({
      type: 'AdaptiveCard',
      version: '1.4',
      actions: [{ type: 'Action.OpenUrl', title: 'Review and decide in opsgate' }],
    });
    expect(JSON.stringify(card.content.body)).toContain('DB_WRITE_PROD');

    // john himself presses Approve: the one authorizer refuses his own high-risk call; only he is told.
    const own = await send(press('U0JOHN', message, 'opsgate_approve', 'john-1'));
    expect(own.status).toBe(200);
    await poll(() => slack.responses.get('john-1')?.[0]?.text).toMatch(/john_doe may not approve|alice/);
    expect(await statusOf(callId)).toBe('proposed');

    const approve = press('U0ALICE', message, 'opsgate_approve', 'alice-1');
    const approveAgain = press('U0ALICE', message, 'opsgate_approve', 'alice-again');
    expect((await send(approve)).status).toBe(200);
    await poll(() => statusOf(callId)).toBe('executed');
    await poll(() => message.updates.length).toBe(1);
    expect(JSON.stringify(message.blocks)).toContain('Approved by alice in Slack');
    expect(message.blocks.some((b) => b.type === 'actions')).toBe(false);
    // Events join the chain a moment after their change (the sealer): seal before reading the table.
    await new AuditLog(server.store).seal();
    const audit = await server.store.db.selectFrom('audit_events').select(['type', 'actor']).where('type', '=', 'tool_approved').execute();
    expect(audit.map((row) => row.actor)).toContain('user:alice');

    // A second, freshly signed press does not run it again: executed once, and the presser is told.
    expect((await send(approveAgain)).status).toBe(200);
    await poll(() => slack.responses.get('alice-again')?.[0]?.text).toMatch(/not waiting for a decision/);
    const executed = async (table: 'audit_events' | 'audit_pending') =>
      (
        await server.store.db
          .selectFrom(table)
          .select('type')
          .where('type', '=', 'tool_executed')
          .where('payload', 'like', `%${callId}%`)
          .execute()
      ).length;
    const executions = (await executed('audit_events')) + (await executed('audit_pending'));
    expect(executions).toBe(1);

    // The same press again is a replay: refused before anything is read.
    const replay = await send(approve);
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.text)).toMatchObject({ code: 'SLACK_SIGNATURE_INVALID' });
    expect(slack.refused).toEqual([]);
  });

  it('forged, stale and unsigned presses are refused; an unmapped or unconfirmed Slack user cannot decide; a confirmed e-mail maps to its user, who rejects', async () => {
    const { callId } = await johnAsks('I need DB_WRITE_DEV');
    await poll(() => slack.messages.length).toBe(2);
    const message = slack.messages[1]!;

    const forged = press('U0ALICE', message, 'opsgate_approve', 'forged');
    forged.headers['x-slack-signature'] = slackSignature(
      'not-the-signing-secret-at-all',
      Number(forged.headers['x-slack-request-timestamp']),
      forged.body,
    );
    expect((await send(forged)).status).toBe(401);
    const tampered = press('U0ALICE', message, 'opsgate_approve', 'tampered');
    expect((await send({ ...tampered, body: tampered.body.replace('opsgate_approve', 'opsgate_reject') })).status).toBe(401);
    const stale = press('U0ALICE', message, 'opsgate_approve', 'stale');
    const old = Math.floor(Date.now() / 1000) - 10 * 60;
    stale.headers['x-slack-request-timestamp'] = String(old);
    stale.headers['x-slack-signature'] = slackSignature(SIGNING_SECRET, old, stale.body);
    expect((await send(stale)).status).toBe(401);
    const unsigned = press('U0ALICE', message, 'opsgate_approve', 'unsigned');
    delete unsigned.headers['x-slack-signature'];
    expect((await send(unsigned)).status).toBe(401);
    expect(await statusOf(callId)).toBe('proposed');

    for (const [member, id] of [
      ['U0STRANGER', 'stranger'],
      ['U0MALLORY', 'mallory'],
    ] as const) {
      expect((await send(press(member, message, 'opsgate_approve', id))).status).toBe(200);
      await poll(() => slack.responses.get(id)?.[0]).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringMatching(/^Your Slack account is not linked to an opsgate user/),
      });
    }
    expect(await statusOf(callId)).toBe('proposed');

    // admin is linked by e-mail; Slack says U0ADMIN's address is confirmed: he may reject.
    expect((await send(press('U0ADMIN', message, 'opsgate_reject', 'admin-1'))).status).toBe(200);
    await poll(() => statusOf(callId)).toBe('rejected');
    await poll(() => JSON.stringify(message.blocks)).toContain('Rejected by admin in Slack');
  });

  it('without a channel, each eligible approver gets the request in a direct message; a decision in opsgate updates the Slack message too', async () => {
    expect((await admin('PUT', '/api/admin/chat/slack', { channel: '' })).status).toBe(200);
    const before = slack.messages.length;
    const { sessionId, callId } = await johnAsks('I need DB_WRITE_DEV');
    await poll(() => slack.messages.length).toBe(before + 2);
    expect(
      slack.messages
        .slice(before)
        .map((m) => m.channel)
        .sort(),
    ).toEqual(['D0ADMIN', 'D0ALICE']);
    const alice = (await new UserRepository(server.store).findByName('alice'))!;
    await server.runtime.decide(
      sessionId,
      { type: 'reject', callId, reason: 'not today' },
      { userId: alice.id, username: 'alice', roles: alice.roles, channel: 'web' },
    );
    await poll(() => slack.messages.slice(before).every((m) => JSON.stringify(m.blocks).includes('Rejected by alice in opsgate'))).toBe(
      true,
    );
  });

  it('a disabled approver who is still linked cannot decide from Slack (issue 31: Slack for real)', async () => {
    const users = new UserRepository(server.store);
    await users.create({ username: 'carol', roles: ['approver'] });
    expect((await admin('PUT', '/api/admin/chat/slack/links/carol', { slackUserId: 'U0CAROL' })).status).toBe(200);
    expect((await admin('PUT', '/api/admin/chat/slack', { channel: CHANNEL })).status).toBe(200);
    await users.disable('carol');
    const before = slack.messages.length;
    const { callId } = await johnAsks('I need DB_WRITE_DEV');
    await poll(() => slack.messages.length).toBe(before + 1);
    const message = slack.messages[before]!;
    expect((await send(press('U0CAROL', message, 'opsgate_approve', 'carol-1'))).status).toBe(200);
    await poll(() => slack.responses.get('carol-1')?.[0]).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/linked to your Slack account is disabled, so you cannot decide here/),
    });
    expect(await statusOf(callId)).toBe('proposed');
    expect(message.updates).toEqual([]);
    // A linked, enabled approver then approves it: it runs once, and the message says so.
    expect((await send(press('U0ALICE', message, 'opsgate_approve', 'alice-2'))).status).toBe(200);
    await poll(() => statusOf(callId)).toBe('executed');
    await poll(() => JSON.stringify(message.blocks)).toContain('Approved by alice in Slack');
    await new AuditLog(server.store).seal();
    const approvals = await server.store.db.selectFrom('audit_events').select('type').where('type', '=', 'tool_executed').execute();
    expect(approvals.length).toBeGreaterThan(0);
  });

  it("Send test message reaches Slack and Teams with a link; without a saved address the link is the server's own (issue 31, item 3)", async () => {
    const slackTest = await admin('POST', '/api/admin/chat/slack/test', {});
    expect(slackTest.status).toBe(200);
    expect(slackTest.json.message).toBe(`Sent a test message to channel ${CHANNEL}. It links to ${PUBLIC_URL}/#/inbox.`);
    expect(JSON.stringify(slack.messages.at(-1)!.blocks)).toContain(`<${PUBLIC_URL}/#/inbox|`);

    // No address saved: cards still carry "Review and decide", to the server's OPSGATE_PUBLIC_URL.
    expect((await admin('PUT', '/api/admin/chat/common', { publicUrl: '' })).status).toBe(200);
    const teamsBefore = teamsPosts.length;
    const teamsTest = await admin('POST', '/api/admin/chat/teams/test', {});
    expect(teamsTest.status).toBe(200);
    expect(teamsTest.json.message).toContain(`It links to ${SERVER_URL}/#/inbox.`);
    await poll(() => teamsPosts.length).toBe(teamsBefore + 1);
    const { sessionId } = await johnAsks('I need database access', 'Production, read only');
    await poll(() => teamsPosts.length).toBe(teamsBefore + 2);
    const card = (teamsPosts.at(-1)!.attachments as Array<{ content: Record<string, unknown> }>)[0]!.content;
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Review and decide in opsgate', url: `${SERVER_URL}/#/sessions/${encodeURIComponent(sessionId)}` },
    ]);
    expect(JSON.stringify(card.body)).toMatch(/john_doe asks: DB_READ_PROD for john_doe, \d+ days · \w+/);

    // A webhook that refuses: the admin reads why, in words, with what to do next.
    expect((await admin('PUT', '/api/admin/chat/teams', { webhookUrl: `${teamsUrl.replace('/webhookb2/opsgate', '')}/gone` })).status).toBe(
      200,
    );
    teamsRefuses = true;
    const failed = await admin('POST', '/api/admin/chat/teams/test', {});
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ code: 'CHAT_TEST_FAILED', message: expect.stringMatching(/answered 404\. Check the settings/) });
  });
});
