import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents } from '../../src/agents/index.ts';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { createHostDirectory } from '../../src/app/host-directory.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { UserRepository } from '../../src/core/identity/users.ts';
import type { TurnResult } from '../../src/core/runtime/index.ts';
import { AuditReader } from '../../src/server/audit-reader.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
import { developerIdentifiers, readableText, unreadableIn } from './readable-text.ts';
import {
  approveInPanel,
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

/** `expect.poll` with room for a loaded machine (its default gives up after 1 s). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });

/**
 * Issue 22, "the approver's day", in Chromium with every agent on the offline model: the inbox
 * shows what the session shows, stays live, refuses what no longer waits in plain words; a
 * requester is never stuck behind his own request; the audit page is newest first and paged; a
 * runbook stops when told to.
 */
describe.skipIf(!chromiumAvailable)("the approver's day (issue 22, Chromium)", () => {
  let server: WebServer;
  let browser: Browser;
  let sshd: TestSshd | undefined;
  const people = new Map<string, Identity>();

  async function signIn(username: string, prepare?: (page: Page) => Promise<void>): Promise<Page> {
    const page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    await prepare?.(page);
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    return page;
  }

  /** A session of `agent` for john_doe that ends waiting for approval after `messages` (questions answered yes). */
  async function pendingApproval(agent: string, messages: readonly string[]): Promise<{ sessionId: string; callId: string; tool: string }> {
    const john = people.get('john_doe')!;
    const sessionId = (await server.runtime.startSession({ agent, identity: john })).id;
    let result: TurnResult | undefined;
    for (const text of messages) result = await server.runtime.send(sessionId, text, john);
    while (result?.interrupt?.type === 'question')
      result = await server.runtime.decide(sessionId, { type: 'answer', callId: result.interrupt.callId, answer: 'yes' }, john);
    const interrupt = result?.interrupt;
    if (interrupt?.type !== 'approval') throw new Error(`${agent} did not ask for approval: ${JSON.stringify(result)}`);
    return { sessionId, callId: interrupt.callId, tool: interrupt.tool };
  }

  async function phoneWidth(page: Page): Promise<number> {
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.setViewportSize(DESKTOP);
    return overflow;
  }

  beforeAll(async () => {
    mkdirSync(SCREENS, { recursive: true });
    buildWeb();
    if (sshdAvailable()) sshd = await startTestSshd();
    server = await startWebServer({
      agents,
      hosts: (store, secrets) => createHostDirectory(store, secrets),
      prepare: async (store, secrets) => {
        if (!sshd) return;
        await new HostRepository(store, secrets).add({
          name: 'web-1',
          address: sshd.host,
          port: sshd.port,
          username: sshd.username,
          auth: { kind: 'key', privateKey: sshd.privateKey },
          hostKeySha256: sshd.hostKeyFingerprint,
        });
      },
    });
    const users = new UserRepository(server.store);
    for (const name of ['john_doe', 'alice', 'admin']) {
      const user = (await users.findByName(name))!;
      people.set(name, { userId: user.id, username: user.username, roles: user.roles, channel: 'web' });
    }
    browser = await launchChromium();
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close().catch(() => undefined);
    await sshd?.stop();
  });

  it(
    'Broken 2: for every tool kind the inbox card shows exactly the preview the session shows — the DROP, the rows, the command with its host, the manifest diff, the risk reason',
    async () => {
      const kinds: Array<{ agent: string; messages: string[]; shows: RegExp }> = [
        { agent: 'access', messages: ['I need database access', 'Production, write'], shows: /DB_WRITE_PROD/ },
        { agent: 'sandbox', messages: ['DROP TABLE order_items'], shows: /order_items/ },
        { agent: 'sandbox', messages: ["UPDATE customers SET country = 'QQ' WHERE id = 2"], shows: /QQ/ },
        { agent: 'helm', messages: ['install nginx in web set replicaCount=3'], shows: /Manifest/ },
        ...(sshd ? [{ agent: 'troubleshoot', messages: ['run uptime'], shows: /web-1 \$ uptime\n/ }] : []),
      ];
      const alice = await signIn('alice');
      const identifiers = developerIdentifiers(server.runtime.agents());
      // One at a time: two open sandbox transactions would wait on each other's lock.
      for (const kind of kinds) {
        const call = await pendingApproval(kind.agent, kind.messages);
        await alice.goto(`${server.url}/#/sessions/${call.sessionId}`);
        const inSession = alice.getByTestId('approval-panel').getByTestId('approval-summary');
        await inSession.waitFor();
        const shown = await inSession.innerText();
        expect(shown, call.tool).toMatch(kind.shows);
        expect(shown, call.tool).toMatch(/^Risk: /);
        // Review A11: the facts of a grant say days as days and dates in the page's format, not ISO.
        if (call.tool === 'grant_access_to_user') {
          const facts = await alice.getByTestId('approval-panel').getByTestId('preview-fields').innerText();
          expect(facts).toMatch(/renewal period\s*14 days/);
          expect(facts).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
        }
        // Issue 31: the approver reads no developer words unless she opens the details.
        expect(unreadableIn(await alice.evaluate(readableText), identifiers), `${call.tool}: the session page shows`).toEqual([]);
        await alice.goto(`${server.url}/#/inbox`);
        const card = alice.locator(`[data-testid="inbox-item"][data-call-id="${call.callId}"]`);
        await card.getByTestId('approval-summary').waitFor();
        expect(await card.getByTestId('approval-summary').innerText(), `${call.tool} in the inbox`).toBe(shown);
        // Raw arguments are folded away, as in the session: never `{}` in place of a preview.
        expect(await card.locator('details.raw[open]').count()).toBe(0);
        expect(unreadableIn(await alice.evaluate(readableText), identifiers), `${call.tool}: the inbox shows`).toEqual([]);
        await alice.screenshot({ path: join(SCREENS, `40-inbox-${call.tool}-1400x900.png`), fullPage: true });
        expect(await phoneWidth(alice), `the Approvals page with ${call.tool} overflows a phone`).toBeLessThanOrEqual(0);
        await server.runtime.decide(call.sessionId, { type: 'reject', callId: call.callId, reason: 'test done' }, people.get('alice')!);
      }
    },
    TIMEOUT,
  );

  it(
    'Broken 3: the list and the badge agree without a reload; a call withdrawn while the page shows it answers in plain words, not with API instructions',
    async () => {
      const alice = await signIn('alice', async (page) => {
        await page.clock.install();
      });
      await alice.goto(`${server.url}/#/inbox`);
      await alice.getByTestId('inbox-empty').waitFor();
      // The page's clock stands still: the list changes only when the test moves time by one poll.
      await alice.clock.pauseAt(Date.now() + 1_000);
      const call = await pendingApproval('access', ['I need database access', 'Production, write']);
      await alice.clock.runFor(5_000);
      const card = alice.locator(`[data-testid="inbox-item"][data-call-id="${call.callId}"]`);
      await card.waitFor();
      await poll(() => alice.getByTestId('inbox-badge').textContent()).toBe('1');

      await server.runtime.decide(call.sessionId, { type: 'withdraw', callId: call.callId }, people.get('john_doe')!);
      await card.getByTestId('inbox-approve').click();
      await card.getByTestId('inbox-confirm-approve').click();
      const error = alice.getByTestId('inbox-error');
      await poll(() => error.textContent()).toMatch(/^This request no longer waits/);
      expect(await error.textContent()).not.toMatch(/GET \/api|opsgate approvals/);
      await alice.getByTestId('inbox-empty').waitFor();
      await poll(() => alice.getByTestId('inbox-badge').count()).toBe(0);
      await poll(() => alice.getByTestId('inbox-history').locator('tbody tr').first().textContent()).toContain('withdrawn by john_doe');
    },
    TIMEOUT,
  );

  it(
    'Broken 5: a requester who may not approve is told who can, withdraws or changes his request by typing, and the chat stays usable; "rollback" rolls back a staged write',
    async () => {
      const john = await signIn('john_doe');
      await john.goto(`${server.url}/#/`);
      await john.getByTestId('new-access').click();
      await john.waitForURL(/#\/sessions\//);
      const say = async (text: string) => {
        await john.getByLabel('Message').fill(text);
        await john.getByRole('button', { name: 'Send' }).click();
      };
      await say('I need database access');
      await john.getByTestId('message-assistant').first().waitFor();
      await say('Production, write');
      const panel = john.getByTestId('approval-panel');
      const waiting = panel.getByTestId('waiting-for-others');
      await waiting.waitFor();
      expect(await waiting.textContent()).toMatch(/Waiting for admin or alice/);
      expect(await panel.getByTestId('approve').count()).toBe(0);
      expect(await john.getByLabel('Message').isEnabled()).toBe(true);
      expect(await john.getByLabel('Message').getAttribute('placeholder')).toMatch(/Waiting for admin or alice/);
      await john.screenshot({ path: join(SCREENS, '41-requester-waiting-1400x900.png'), fullPage: true });
      expect(await phoneWidth(john)).toBeLessThanOrEqual(0);
      // On a phone the header scrolls away (it used to stick at 144 px and cover the panel's top).
      await john.setViewportSize(PHONE);
      const header = await john
        .locator('.topbar')
        .evaluate((el) => ({ position: getComputedStyle(el).position, height: el.getBoundingClientRect().height }));
      await john.setViewportSize(DESKTOP);
      expect(header.position).toBe('static');
      expect(header.height).toBeLessThan(100);

      // "yes" is a decision he may not make: the answer names who can, and nothing is dropped silently.
      await say('yes');
      await poll(() => john.getByTestId('chat-error').textContent()).toMatch(/alice/);
      await waiting.waitFor();
      // Withdraw takes it back; the chat goes on.
      await panel.getByTestId('withdraw').click();
      await poll(() => john.locator('[data-tool="grant_access_to_user"][data-status="rejected"]').count()).toBe(1);
      await poll(() => panel.count()).toBe(0);
      // Asked again, then changed by simply typing the new request: the pending one is withdrawn first.
      await say('I need DB_WRITE_PROD');
      await waiting.waitFor();
      await say('I need DB_READ_STAGING');
      await poll(() => john.locator('[data-tool="grant_access_to_user"][data-status="rejected"]').count()).toBe(2);
      await poll(() => panel.getByTestId('preview-fields').textContent()).toContain('DB_READ_STAGING');
      await approveInPanel(john);
      await john.getByText("I've granted you DB_READ_STAGING access.").waitFor();

      // Sandbox: "/help" promises commit | rollback; typing rollback while the commit waits rolls back.
      await john.goto(`${server.url}/#/`);
      await john.getByTestId('new-sandbox').click();
      await john.waitForURL(/#\/sessions\//);
      await say("UPDATE customers SET country = 'RB' WHERE id = 3");
      await john.getByTestId('approval-panel').getByTestId('row-change-table').waitFor();
      await say('rollback');
      await poll(() => john.locator('[data-tool="commit_transaction"][data-status="rejected"]').count()).toBe(1);
      await poll(() => john.getByTestId('approval-panel').count()).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'Broken 4: the audit page is newest first and paged, filters by type (from a list), tool and target, and verifies the chain on request',
    async () => {
      // Enough events for more than one page.
      const john = people.get('john_doe')!;
      const sessionId = (await server.runtime.startSession({ agent: 'sandbox', identity: john })).id;
      const reader = new AuditReader(server.store);
      const admin_ = people.get('admin')!;
      for (let i = 0; i < 200 && (await reader.list(admin_, { limit: 1000 })).length <= 130; i++)
        await server.runtime.send(sessionId, `SELECT ${i} AS n`, john);
      // A write names its statement in the audit trail: the target filter finds it.
      await server.runtime.send(sessionId, "UPDATE customers SET country = 'TT' WHERE id = 4", john);

      const admin = await signIn('admin');
      await admin.goto(`${server.url}/#/audit`);
      const rows = admin.locator('[data-testid="audit-table"] tbody tr');
      await rows.first().waitFor();
      const seqs = async () => (await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-seq'))))) as number[];
      const first = await seqs();
      expect(first).toHaveLength(100);
      expect(first).toEqual([...first].sort((a, b) => b - a));
      const newest = await admin.evaluate(async () => {
        const answer = (await (await fetch('/api/audit?order=desc&limit=1')).json()) as { events: Array<{ seq: number }> };
        return answer.events[0]!.seq;
      });
      expect(first[0]).toBe(newest);
      await admin
        .getByTestId('audit-count')
        .getByText(/older ones follow/)
        .waitFor();
      await admin.getByTestId('audit-older').click();
      await poll(async () => (await seqs()).length).toBeGreaterThan(100);
      const paged = await seqs();
      expect(paged).toEqual([...paged].sort((a, b) => b - a));
      expect(new Set(paged).size).toBe(paged.length);

      await admin.locator('#audit-type').selectOption('session_started');
      await admin.getByRole('button', { name: 'Filter' }).click();
      await poll(async () => [...new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type'))))]).toEqual([
        'session_started',
      ]);
      // Broken 3's withdrawal reads as one, not as a rejection (review N8).
      await admin.locator('#audit-type').selectOption('tool_rejected');
      await admin.getByRole('button', { name: 'Filter' }).click();
      await poll(() => admin.getByTestId('audit-type').allTextContents()).toContain('tool withdrawn');
      await admin.locator('#audit-type').selectOption('');
      await admin.locator('#audit-tool').fill('execute_query');
      await admin.getByRole('button', { name: 'Filter' }).click();
      await poll(async () => [...new Set(await admin.getByTestId('audit-tool').allTextContents())]).toEqual(['execute_query']);
      await admin.locator('#audit-tool').fill('');
      await admin.locator('#audit-target').fill("set country = 'tt'");
      await admin.getByRole('button', { name: 'Filter' }).click();
      await poll(async () => (await rows.allTextContents()).every((row) => row.includes("SET country = 'TT'"))).toBe(true);
      expect(await rows.count()).toBeGreaterThan(0);
      expect(await rows.count()).toBeLessThan(10);

      await admin.getByTestId('verify-chain').click();
      await poll(() => admin.getByTestId('chain-status').textContent()).toMatch(/^intact \(\d+ events verified at /);
      await admin.screenshot({ path: join(SCREENS, '42-audit-filtered-1400x900.png'), fullPage: true });
      expect(await phoneWidth(admin)).toBeLessThanOrEqual(0);
    },
    TIMEOUT,
  );

  it.skipIf(!sshdAvailable())(
    'Broken 6: rejecting a runbook command with "stop" stops the runbook: nothing more is proposed',
    async () => {
      const john = await signIn('john_doe');
      await john.goto(`${server.url}/#/`);
      await john.getByTestId('new-troubleshoot').click();
      await john.waitForURL(/#\/sessions\//);
      await john.getByLabel('Message').fill('disk full on web-1');
      await john.getByRole('button', { name: 'Send' }).click();
      const panel = john.getByTestId('approval-panel');
      await panel.waitFor({ timeout: 60_000 });
      await panel.getByTestId('reject').click();
      const reasonBox = john.getByTestId('reject-reason');
      await reasonBox.fill('stop');
      await john.getByTestId('reject-submit').click();
      await john
        .getByText(/^Stopped: nothing more will be proposed/)
        .waitFor({ timeout: 60_000 })
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}\n${await john.locator('main').innerText()}`);
        });
      expect(await john.getByTestId('approval-panel').count()).toBe(0);
      expect(await john.getByTestId('session-status').textContent()).toBe('idle');

      // Issue 31, item 2: the word people type, and a visible button, end the runbook too.
      const stops = john.getByText(/^Stopped: nothing more will be proposed/);
      for (const [index, stop] of [
        async () => {
          expect(await john.getByLabel('Message').getAttribute('placeholder')).toMatch(/stop to end the runbook/);
          await john.getByLabel('Message').fill('stop');
          await john.getByRole('button', { name: 'Send' }).click();
        },
        () => panel.getByTestId('stop-runbook').click(),
      ].entries()) {
        await john.getByLabel('Message').fill('disk full on web-1');
        await john.getByRole('button', { name: 'Send' }).click();
        await panel.waitFor({ timeout: 60_000 });
        await stop();
        await expect.poll(() => stops.count(), { timeout: 60_000 }).toBe(index + 2);
        await poll(() => panel.count()).toBe(0);
      }
      expect(await john.locator('[data-tool="suggest_ssh_command"][data-status="proposed"]').count()).toBe(0);
    },
    TIMEOUT,
  );
});
