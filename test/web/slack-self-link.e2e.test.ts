import type { Kysely } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import { type FakeSlack, startFakeSlack } from './fake-slack.ts';
import { buildWeb, chromiumAvailable, launchChromium, PASSWORD, releaseChromium, startWebServer, type WebServer } from './web-harness.ts';

const TIMEOUT = 90_000;
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 });

/**
 * Review H2-new, the web side: a person links their own Slack account while signed in, with the
 * code opsgate's bot sends to that account; an admin's browser links only the admin; an admin's
 * link for someone else is shown to them as not theirs; every change is in the audit.
 */
describe.skipIf(!chromiumAvailable)('linking my own Slack account in the web UI (Chromium)', () => {
  let slack: FakeSlack;
  let server: WebServer;
  let browser: Browser;
  let adminToken: string;

  async function signIn(username: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    await page.goto(`${server.url}/#/admin`);
    await page.getByTestId('my-slack-link').waitFor();
    return page;
  }

  /** The code the bot sent to this member's direct messages. */
  async function codeSentTo(memberId: string): Promise<string> {
    const channel = `D${memberId.slice(1)}`;
    let code: string | undefined;
    await poll(() => {
      const dm = slack.messages.findLast((message) => message.channel === channel);
      code = /link code is (\d{6})/.exec(dm?.text ?? '')?.[1];
      return code;
    }).toBeDefined();
    return code!;
  }

  async function linkThroughTheScreen(page: Page, memberId: string): Promise<void> {
    await page.getByTestId('slack-member-id').fill(memberId);
    await page.getByTestId('slack-send-code').click();
    await page.getByTestId('slack-link-code').fill(await codeSentTo(memberId));
    await page.getByTestId('slack-confirm-code').click();
    await poll(() => page.getByTestId('slack-link-message').textContent()).toBe(`Linked: Slack member ${memberId} is you in opsgate now.`);
  }

  async function linkOf(username: string): Promise<{ external_id: string | null; linked_by: string | null } | undefined> {
    const user = await new UserRepository(server.store).findByName(username);
    const db = server.store.db as unknown as Kysely<{
      chat_user_links: { user_id: number; provider: string; external_id: string | null; linked_by: string | null };
    }>;
    return db.selectFrom('chat_user_links').select(['external_id', 'linked_by']).where('user_id', '=', user!.id).executeTakeFirst();
  }

  beforeAll(async () => {
    buildWeb();
    slack = await startFakeSlack({
      botToken: 'xoxb-test-1234-abcdefgh',
      members: [
        { id: 'U0ALICE', email: 'alice@example.com', emailConfirmed: true },
        { id: 'U0ADMIN', email: 'admin@example.com', emailConfirmed: true },
        { id: 'U0ADMIN2', email: 'admin2@example.com', emailConfirmed: true },
      ],
    });
    server = await startWebServer({ chat: { slackApiUrl: slack.apiUrl, publicUrl: 'https://opsgate.example.com' } });
    browser = await launchChromium();
    adminToken = (await new UserRepository(server.store).createToken('admin', 'self-link-setup')).token;
    const configure = async (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (
        await configure('/api/admin/chat/slack', {
          botToken: 'xoxb-test-1234-abcdefgh',
          signingSecret: '8f742231b10e8888abcd99yyyzzz85a5',
          channel: '',
        })
      ).status,
    ).toBe(200);
    // The review's H2 attack: the admin points alice's link at his own second Slack account.
    expect((await configure('/api/admin/chat/slack/links/alice', { slackUserId: 'U0ADMIN2' })).status).toBe(200);
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
    await slack?.close();
  });

  it(
    'alice sees the link the admin set is not hers, links her own account with the code Slack shows her, then unlinks it; all audited',
    async () => {
      const page = await signIn('alice');
      await poll(() => page.getByTestId('slack-link-state').textContent()).toContain(
        'admin linked your opsgate account to the Slack member U0ADMIN2',
      );
      await linkThroughTheScreen(page, 'U0ALICE');
      await poll(() => page.getByTestId('slack-link-state').textContent()).toBe(
        'Your opsgate account is linked to the Slack member U0ALICE. You confirmed it with a code sent there.',
      );
      expect(await linkOf('alice')).toEqual({ external_id: 'U0ALICE', linked_by: 'alice' });

      await page.getByTestId('slack-unlink').click();
      await poll(() => page.getByTestId('slack-link-state').textContent()).toBe('No Slack account is linked to you.');
      expect(await linkOf('alice')).toBeUndefined();

      // Events are journaled with their change and sealed into the chain a moment later: seal first, as readers do.
      await new AuditLog(server.store).seal();
      const events = await server.store.db
        .selectFrom('audit_events')
        .select(['type', 'actor', 'payload'])
        .where('type', 'in', ['chat_link_requested', 'chat_link_changed'])
        .orderBy('seq')
        .execute();
      const mine = events.filter((event) => event.actor === 'user:alice').map((event) => [event.type, JSON.parse(event.payload)]);
      expect(mine).toEqual([
        ['chat_link_requested', expect.objectContaining({ username: 'alice', slackUserId: 'U0ALICE' })],
        [
          'chat_link_changed',
          expect.objectContaining({
            from: { slackUserId: 'U0ADMIN2', email: '' },
            to: { slackUserId: 'U0ALICE', email: '' },
            by: 'alice',
            confirmedInSlack: true,
          }),
        ],
        [
          'chat_link_changed',
          expect.objectContaining({ from: { slackUserId: 'U0ALICE', email: '' }, to: { slackUserId: '', email: '' }, by: 'alice' }),
        ],
      ]);
    },
    TIMEOUT,
  );

  it(
    "the admin's screen links the admin only, and a code sent to a member is no good in another person's session",
    async () => {
      const adminPage = await signIn('admin');
      const alicePage = await signIn('alice');
      await adminPage.getByTestId('slack-member-id').fill('U0ALICE');
      await adminPage.getByTestId('slack-send-code').click();
      const code = await codeSentTo('U0ALICE');
      // alice holds the Slack account, but the code belongs to the admin's request: she has none waiting.
      const foreign = await alicePage.evaluate(async (given) => {
        const csrf = await (await fetch('/api/me', { credentials: 'same-origin' })).json();
        const answer = await fetch('/api/me/chat/slack/link/confirm', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf.csrfToken },
          body: JSON.stringify({ code: given }),
        });
        return { status: answer.status, code: (await answer.json()).code };
      }, code);
      expect(foreign).toEqual({ status: 400, code: 'CHAT_LINK_CODE_INVALID' });
      await linkThroughTheScreen(adminPage, 'U0ADMIN');
      expect(await linkOf('admin')).toEqual({ external_id: 'U0ADMIN', linked_by: 'admin' });
      expect(await linkOf('alice')).toBeUndefined();
    },
    TIMEOUT,
  );
});
