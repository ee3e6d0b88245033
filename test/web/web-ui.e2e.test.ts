import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessAgent } from '../../src/agents/access/index.ts';
import { helmAgent } from '../../src/agents/helm/index.ts';
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

/** `expect.poll` with room for a loaded machine (its default gives up after 1 s; a page's round trip under load took longer). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 });

const SHOTS = join(ROOT, 'test-results', 'web');
const TIMEOUT = 90_000;

describe.skipIf(!chromiumAvailable)('web UI in Chromium against a real server', () => {
  let server: WebServer;
  let browser: Browser;
  let john: BrowserContext;
  let page: Page;
  let flow1SessionId = '';

  const shot = (target: Page, name: string) => target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  async function signIn(target: Page, username: string): Promise<void> {
    await target.goto(`${server.url}/`);
    await target.getByLabel('Username').fill(username);
    await target.getByLabel('Password').fill(PASSWORD);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.getByTestId('who').waitFor();
  }

  async function newAccessSession(target: Page): Promise<string> {
    await target.goto(`${server.url}/#/`);
    await target.getByTestId('new-access').click();
    await target.waitForURL(/#\/sessions\//);
    return decodeURIComponent(target.url().split('#/sessions/')[1]!);
  }

  async function say(target: Page, text: string): Promise<void> {
    await target.getByLabel('Message').fill(text);
    await target.getByRole('button', { name: 'Send' }).click();
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildWeb();
    // helm rides along to show its SIMULATED-cluster notice on the sessions screen.
    server = await startWebServer({ agents: [accessAgent, helmAgent] });
    browser = await launchChromium();
    john = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await john.newPage();
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
  });

  it(
    'logs in and shows the sessions list with a new-session button per agent',
    async () => {
      await page.goto(`${server.url}/`);
      await shot(page, '01-login');
      await signIn(page, 'john_doe');
      // The agents list loads after sign-in; wait for it rather than sampling once.
      await page.getByTestId('new-access').waitFor({ state: 'visible', timeout: 10_000 });
      await expect(page.getByTestId('new-access').isVisible()).resolves.toBe(true);
      await poll(() => page.getByTestId('notice-helm').textContent()).toContain('SIMULATED cluster');
      await shot(page, '02-sessions');
    },
    TIMEOUT,
  );

  it(
    'access flow 1: the grant waits in the approval panel, survives a reload, and runs once approved',
    async () => {
      flow1SessionId = await newAccessSession(page);
      await say(page, 'I need access to read documents');
      const panel = page.getByTestId('approval-panel');
      await panel.waitFor();
      await poll(() => panel.getByTestId('approval-title').textContent()).toMatch(/asks: READ_DOCUMENTS for \w+/);
      await poll(() => page.getByTestId('approval-args').textContent()).toContain('READ_DOCUMENTS');
      await shot(page, '03-approval-panel');
      await page.reload();
      await page.getByTestId('approval-panel').waitFor();
      await poll(() => page.getByTestId('approval-args').textContent()).toContain('READ_DOCUMENTS');
      await shot(page, '04-approval-after-reload');
      await approveInPanel(page);
      await page.getByText("I've granted you READ_DOCUMENTS access.").waitFor();
      await poll(() => page.getByTestId('approval-panel').count()).toBe(0);
      await poll(() => page.locator('[data-tool="grant_access_to_user"]').getAttribute('data-status')).toBe('executed');
      await shot(page, '05-granted');
    },
    TIMEOUT,
  );

  it(
    'thumbs down on an answer with a comment is stored (AR-10)',
    async () => {
      const answer = page.getByTestId('message-assistant').last();
      await answer.getByRole('button', { name: 'Thumbs up' }).click();
      await answer.getByLabel('Comment (optional)').fill('quick and right');
      await answer.getByRole('button', { name: 'Send feedback' }).click();
      await answer.getByText('Thanks for the feedback.').waitFor();
      const rows = await server.store.db.selectFrom('feedback').selectAll().where('session_id', '=', flow1SessionId).execute();
      expect(rows).toEqual([
        expect.objectContaining({ rating: 1, comment: 'quick and right', target: expect.stringMatching(/^message:\d+$/) }),
      ]);
    },
    TIMEOUT,
  );

  it(
    'access flow 2: answers the clarifying question, then approves the production read grant',
    async () => {
      await newAccessSession(page);
      await say(page, 'I need database access');
      await page.getByText(/I found multiple/).waitFor();
      await shot(page, '06-clarifying-question');
      await say(page, 'Production, read only');
      await page.getByTestId('approval-panel').waitFor();
      await poll(() => page.getByTestId('approval-args').textContent()).toContain('DB_READ_PROD');
      await approveInPanel(page);
      await page.getByText("I've granted you DB_READ_PROD access.").waitFor();
      await shot(page, '07-flow2-granted');
    },
    TIMEOUT,
  );

  it(
    'rejecting a grant with a reason: nothing is granted and the agent says so; the reason box stays open while an older snapshot of the session answers late',
    async () => {
      const sessionId = await newAccessSession(page);
      // alice has the session open before john asks. The first snapshot her page asks for (the
      // session before the request) is held back, as a busy server or a slow link does, and
      // answers only after she has opened the reason box: it must not close the box (issue 31).
      const approver = await (await browser.newContext()).newPage();
      await signIn(approver, 'alice');
      await approver.addInitScript(() => {
        const read = Response.prototype.text;
        Response.prototype.text = async function (this: Response) {
          const text = await read.call(this);
          if (this.headers.get('x-test-held')) (window as { heldAnswerRead?: boolean }).heldAnswerRead = true;
          return text;
        };
      });
      let releaseHeld: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        releaseHeld = resolve;
      });
      let holding = true;
      await approver.route(
        (url) => url.pathname === `/api/sessions/${sessionId}`,
        async (route) => {
          if (!holding || route.request().method() !== 'GET') return route.fallback();
          holding = false;
          const before = await route.fetch();
          await held;
          await route.fulfill({ response: before, headers: { ...before.headers(), 'x-test-held': '1' } });
        },
      );
      await approver.reload();
      await approver.goto(`${server.url}/#/sessions/${encodeURIComponent(sessionId)}`);
      await poll(() => holding).toBe(false);

      await say(page, 'I need DB_WRITE_DEV');
      await page.getByTestId('approval-panel').waitFor();
      // john may not approve his own high-risk grant: an approver rejects it, with a reason.
      await approver.getByTestId('reject').click();
      const reasonBox = approver.getByTestId('reject-reason');
      await reasonBox.fill('not approved by my manager');
      releaseHeld();
      await approver.waitForFunction(() => (window as { heldAnswerRead?: boolean }).heldAnswerRead === true);
      await approver.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
      expect(await reasonBox.isVisible(), 'the reason box is still open').toBe(true);
      expect(await reasonBox.inputValue()).toBe('not approved by my manager');
      await shot(approver, '08-reject-reason');
      await approver.getByRole('button', { name: 'Reject', exact: true }).click();
      await page.getByText('Okay, I did not grant DB_WRITE_DEV access.').waitFor();
      await poll(() => page.locator('[data-tool="grant_access_to_user"]').getAttribute('data-status')).toBe('rejected');
      await shot(page, '09-rejected');
    },
    TIMEOUT,
  );

  it(
    'the audit view shows proposed → approved → executed for flow 1 and an intact chain',
    async () => {
      await page.goto(`${server.url}/#/audit?session=${encodeURIComponent(flow1SessionId)}`);
      await page.getByTestId('audit-table').waitFor();
      await page
        .getByTestId('chain-status')
        .getByText(/intact/)
        .waitFor();
      // The page lists newest first: read it oldest first.
      const types = (
        await page.locator('[data-testid="audit-table"] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-type')))
      ).reverse();
      const proposed = types.indexOf('tool_proposed');
      const approved = types.indexOf('tool_approved');
      const executed = types.lastIndexOf('tool_executed');
      expect(proposed).toBeGreaterThanOrEqual(0);
      expect(approved).toBeGreaterThan(proposed);
      expect(executed).toBeGreaterThan(approved);
      await shot(page, '10-audit');
      const exported = await page.evaluate(async (id) => (await fetch(`/api/audit/export?session=${id}`)).text(), flow1SessionId);
      expect(
        exported
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { type: string }).type),
      ).toEqual(expect.arrayContaining(['tool_proposed', 'tool_approved']));
    },
    TIMEOUT,
  );

  it(
    "a second user cannot open the first user's session",
    async () => {
      const jane = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const janePage = await jane.newPage();
      await signIn(janePage, 'jane_smith');
      await janePage.goto(`${server.url}/#/sessions/${encodeURIComponent(flow1SessionId)}`);
      const error = janePage.getByTestId('session-error');
      await error.waitFor();
      await poll(() => error.textContent()).toContain('belongs to another person');
      // Plain language, no raw session UUID, and a way on.
      expect(await error.textContent()).not.toContain(flow1SessionId);
      await poll(() => janePage.getByText('READ_DOCUMENTS').count()).toBe(0);
      await shot(janePage, '11-other-user-forbidden');
      const missing = '3f2a9c4e-1b7d-4e8a-9c0f-5d6e7f8a9b0c';
      await janePage.goto(`${server.url}/#/sessions/${missing}`);
      await poll(() => error.textContent()).toContain('This session does not exist');
      expect(await error.textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      await janePage.getByTestId('back-to-sessions').click();
      await janePage.getByTestId('new-access').waitFor();
      await jane.close();
    },
    TIMEOUT,
  );

  it(
    'reads at phone width and in dark mode',
    async () => {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
      const phonePage = await phone.newPage();
      await signIn(phonePage, 'john_doe');
      await phonePage.goto(`${server.url}/#/sessions/${encodeURIComponent(flow1SessionId)}`);
      await phonePage.getByText("I've granted you READ_DOCUMENTS access.").waitFor();
      const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const background = await phonePage.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe('rgb(14, 17, 22)');
      await shot(phonePage, '12-phone-dark');
      await phone.close();
    },
    TIMEOUT,
  );
  it(
    'a hash that changes while the page starts is the screen shown (a navigation before the router listens is not lost)',
    async () => {
      const early = await (await browser.newContext()).newPage();
      await signIn(early, 'john_doe');
      // The hash moves, and its event is gone, just before the router starts listening: as when a
      // test or a person follows a link in the moment between the first paint and the listener.
      await early.addInitScript(() => {
        const listen = window.addEventListener.bind(window);
        let moved = false;
        window.addEventListener = ((type: string, listener: EventListener, options?: boolean | AddEventListenerOptions) => {
          if (type === 'hashchange' && !moved) {
            moved = true;
            history.replaceState(null, '', '#/no-such-page');
          }
          listen(type, listener, options);
        }) as typeof window.addEventListener;
      });
      await early.reload();
      await early.getByTestId('not-found').waitFor();
    },
    TIMEOUT,
  );
});
