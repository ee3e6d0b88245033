import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents } from '../../src/agents/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import {
  buildWeb,
  chromiumAvailable,
  launchChromium,
  PASSWORD,
  ROOT,
  releaseChromium,
  startWebServer,
  type WebServer,
} from './web-harness.ts';

const SCREENS = join(ROOT, 'test-results', 'screens');
const TIMEOUT = 150_000;
const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });

/**
 * Issue 31, "the approver's day, round two", in Chromium with every agent on the offline model:
 * a critical DROP titled by what it asks, confirmed on a phone, its rows named before and after
 * the commit; the inbox's times, feedback, history filter and offline banner; chat settings that
 * never send a card without a link.
 */
describe.skipIf(!chromiumAvailable)("the approver's day, round two (issue 31, Chromium)", () => {
  let server: WebServer;
  let browser: Browser;
  let teamsHook: Server;
  let teamsUrl: string;
  const teamsPosts: Array<Record<string, unknown>> = [];
  let john: Identity;

  async function signIn(username: string, viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({ viewport, ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}) });
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    return page;
  }

  beforeAll(async () => {
    mkdirSync(SCREENS, { recursive: true });
    buildWeb();
    teamsHook = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      teamsPosts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('1');
    });
    await new Promise<void>((resolve) => teamsHook.listen(0, '127.0.0.1', resolve));
    const address = teamsHook.address();
    teamsUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhookb2/opsgate`;
    server = await startWebServer({ agents });
    const record = (await new UserRepository(server.store).findByName('john_doe'))!;
    john = { userId: record.id, username: record.username, roles: record.roles, channel: 'web' };
    browser = await launchChromium();
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
    await new Promise<void>((resolve) => teamsHook?.close(() => resolve()));
  });

  it(
    'a critical DROP says what it drops everywhere, titles its session, and asks "Yes, approve" on a phone, which then says what happened',
    async () => {
      const page = await signIn('john_doe');
      await page.getByTestId('new-sandbox').click();
      await page.waitForURL(/#\/sessions\//);
      await page.getByLabel('Message').fill('DROP TABLE order_items');
      await page.getByRole('button', { name: 'Send' }).click();
      const panel = page.getByTestId('approval-panel');
      await panel.waitFor({ timeout: 60_000 });
      await poll(() => panel.getByTestId('approval-title').textContent()).toMatch(
        /^john_doe asks: DROP TABLE order_items \(\d+ rows\)\s*critical$/,
      );
      const rows = Number(/\((\d+) rows\)/.exec((await panel.getByTestId('approval-title').textContent()) ?? '')?.[1]);
      expect(rows).toBeGreaterThan(0);
      // Item 8: no "-- 0 row(s)" beside the DROP; the schema line names the rows it takes.
      expect(await panel.getByTestId('statements').textContent()).toBe('DROP TABLE order_items;');
      expect(await panel.getByTestId('schema-change').textContent()).toBe(`drops order_items and its ${rows} rows`);
      // No developer words on the first read: policy ids and rule names wait behind "Policy and checks".
      const visible = await panel.innerText();
      expect(visible).not.toMatch(/state-changes-need-approval|declared risk|sha256|argsHash/);
      // Item 5: the session is titled by what it waits on, in the header and in the sessions list.
      await poll(() =>
        page
          .locator('h2')
          .filter({ has: page.locator('.agent-tag') })
          .textContent(),
      ).toContain(`DROP TABLE order_items (${rows} rows)`);
      await page.goto(`${server.url}/#/`);
      await poll(() => page.locator('.title').allTextContents()).toContain(`DROP TABLE order_items (${rows} rows)`);

      // alice on her phone: the card says who asks what, when, and until when; Approve asks once more.
      const alice = await signIn('alice', PHONE);
      await alice.goto(`${server.url}/#/inbox`);
      const card = alice.getByTestId('inbox-item');
      await poll(() => card.getByTestId('inbox-title').textContent()).toMatch(
        /^john_doe asks: DROP TABLE order_items \(\d+ rows\)\s*critical$/,
      );
      expect(await card.getByTestId('inbox-when').textContent()).toMatch(
        /^asked (just now|\d+ min ago) · (expires in .+|does not expire)$/,
      );
      expect(await alice.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      expect(await card.innerText()).not.toMatch(/state-changes-need-approval|declared risk/);
      // Reject sits beside Approve; its reason box opens only on Reject.
      expect(await card.getByTestId('inbox-reject-reason').count()).toBe(0);
      await card.getByTestId('inbox-reject').click();
      await card.getByTestId('inbox-reject-reason').waitFor();
      await card.getByRole('button', { name: 'Cancel' }).click();
      await card.getByTestId('inbox-approve').tap();
      await poll(() => card.getByTestId('inbox-confirm-text').textContent()).toMatch(/^Critical risk: approve “DROP TABLE order_items/);
      await alice.screenshot({ path: join(SCREENS, '50-phone-confirm-critical.png'), fullPage: true });
      // Not yet approved: the confirmation is the only way on.
      expect((await server.runtime.getSession((await server.runtime.pendingApprovals(john))[0]!.sessionId, john)).status).toBe('waiting');
      await card.getByTestId('inbox-confirm-approve').tap();
      await poll(() => alice.getByTestId('inbox-feedback').textContent()).toMatch(/^Approved: john_doe's “DROP TABLE order_items/);
      await alice.getByTestId('inbox-empty').waitFor();
      // History shows people's decisions; the rule-approved staging step only when asked.
      const history = alice.getByTestId('inbox-history');
      await poll(() => history.locator('tbody tr').count()).toBe(1);
      expect(await history.innerText()).not.toContain('rule ');
      await alice.getByTestId('history-rule-steps').check();
      await poll(() => history.innerText()).toContain('rule ');
      // After the commit the rows lost are said, not "1 schema change(s)".
      await page.goto(`${server.url}/#/`);
      await page.locator('.title', { hasText: 'DROP TABLE order_items' }).first().click();
      await poll(() =>
        page
          .getByText(/^Committed:/)
          .first()
          .textContent(),
      ).toBe(`Committed: drops order_items and its ${rows} rows`);
    },
    TIMEOUT,
  );

  it(
    'the inbox shows an offline banner while the server cannot be reached, and drops the stale error once it answers again',
    async () => {
      const { callId } = await (async () => {
        const sessionId = (await server.runtime.startSession({ agent: 'access', identity: john })).id;
        const turn = await server.runtime.send(sessionId, 'I need DB_WRITE_DEV', john);
        if (turn.interrupt?.type !== 'approval') throw new Error('no approval');
        return { callId: turn.interrupt.callId };
      })();
      const alice = await signIn('alice');
      await alice.clock.install();
      await alice.goto(`${server.url}/#/inbox`);
      const card = alice.locator(`[data-testid="inbox-item"][data-call-id="${callId}"]`);
      await card.waitFor();
      await alice.route('**/api/approvals**', (route) => route.abort('connectionrefused'));
      await alice.clock.runFor(6_000);
      await alice.clock.runFor(2_000);
      await alice.getByTestId('offline-banner').waitFor();
      // Deciding while offline fails in words; nothing was decided.
      await card.getByTestId('inbox-approve').click();
      await card.getByTestId('inbox-confirm-approve').click();
      await alice.getByTestId('inbox-error').waitFor();
      await alice.unroute('**/api/approvals**');
      await alice.clock.runFor(6_000);
      await poll(() => alice.getByTestId('offline-banner').count()).toBe(0);
      await poll(() => alice.getByTestId('inbox-error').count()).toBe(0);
      await card.getByTestId('inbox-approve').waitFor();
    },
    TIMEOUT,
  );

  it(
    'chat settings: the shown address is saved with Teams, so the first card links to the request; a test message and an http:// warning',
    async () => {
      const admin = await signIn('admin');
      await admin.goto(`${server.url}/#/admin`);
      const section = admin.getByTestId('admin-chat');
      await section.waitFor();
      await section.getByTestId('address-unsaved').waitFor();
      // The test server is plain http: Slack would refuse its Request URL, and the admin is told.
      expect(await section.getByTestId('http-warning').textContent()).toMatch(
        /starts with http:\/\/\. Slack sends button presses only to an https:\/\//,
      );
      await section.getByLabel('Incoming webhook URL (empty: off)').fill(teamsUrl);
      await section.getByRole('button', { name: 'Save Teams' }).click();
      await poll(() => admin.getByTestId('chat-message').textContent()).toBe('Teams is on: each request is posted as a card.');
      // The message shows before the settings are read again; the saved address follows it.
      await poll(() => section.getByTestId('address-unsaved').count()).toBe(0);
      await section.getByTestId('teams-test').click();
      await poll(() => admin.getByTestId('chat-message').textContent()).toBe(
        `Sent a test card to the Teams channel. It links to ${server.url}/#/inbox.`,
      );
      // The first real request carries "Review and decide" without anyone pressing "Save address".
      const sessionId = (await server.runtime.startSession({ agent: 'access', identity: john })).id;
      await server.runtime.send(sessionId, 'I need database access', john);
      await server.runtime.send(sessionId, 'Production, write', john);
      await poll(() => teamsPosts.length).toBe(2);
      const content = (teamsPosts[1]!.attachments as Array<{ content: Record<string, unknown> }>)[0]!.content;
      expect(content.actions).toEqual([
        { type: 'Action.OpenUrl', title: 'Review and decide in opsgate', url: `${server.url}/#/sessions/${sessionId}` },
      ]);
      expect(JSON.stringify(content.body)).toMatch(/john_doe asks: DB_WRITE_PROD for john_doe, \d+ days · high/);
    },
    TIMEOUT,
  );
});
