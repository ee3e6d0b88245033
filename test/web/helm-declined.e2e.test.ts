import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmAgent } from '../../src/agents/helm/index.ts';
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

const SHOTS = join(ROOT, 'test-results', 'web');
const TIMEOUT = 180_000;

/**
 * Issue 22, Broken 1: after No or Skip at the Helm values gate, or a rejected plan, every later
 * install or upgrade in the same session stopped with "helm_validate_values is not allowed in the
 * discovery phase". In Chromium, as a person does it: decline, then ask again in the same session.
 */
describe.skipIf(!chromiumAvailable)('a declined Helm workflow leaves its session usable (Chromium)', () => {
  let server: WebServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildWeb();
    server = await startWebServer({ agents: [helmAgent] });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill('john_doe');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
  });

  async function send(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  async function newHelmSession(): Promise<void> {
    await page.goto(`${server.url}/#/`);
    await page.getByTestId('new-helm').click();
    await page.waitForURL(/#\/sessions\//);
  }

  /** alice signs in over the API and rejects the call waiting in john's open session (earlier tests leave theirs waiting). */
  async function rejectAsAlice(reason: string): Promise<void> {
    const sessionId = /#\/sessions\/([^/?]+)/.exec(page.url())?.[1];
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: PASSWORD }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const inbox = (await (await fetch(`${server.url}/api/approvals`, { headers: { cookie } })).json()) as {
      pending: Array<{ sessionId: string; interrupt: { callId: string } }>;
    };
    const callId = inbox.pending.find((item) => item.sessionId === sessionId)?.interrupt.callId;
    if (!callId) throw new Error(`nothing of session ${sessionId} waits in alice’s inbox`);
    const rejected = await fetch(`${server.url}/api/approvals/${callId}/reject`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ reason }),
    });
    expect(rejected.status).toBe(200);
  }

  /** Asks for an install and expects it to reach the plan approval (the step the bug never reached). */
  async function installReachesApproval(): Promise<void> {
    await send('install webapp as web set replicaCount=2');
    await page.getByTestId('question-panel').waitFor();
    await page.getByTestId('answer-yes').click();
    await page.getByTestId('approval-panel').waitFor({ timeout: 60_000 });
    expect(await page.locator('body').textContent()).not.toContain('is not allowed in the');
  }

  it.each(['no', 'skip'] as const)(
    '%s at the values gate, then an install in the same session reaches the plan approval',
    async (answer) => {
      await newHelmSession();
      await send('install webapp as web');
      await page.getByTestId('question-panel').waitFor();
      await page.getByTestId(`answer-${answer}`).click();
      await page.getByText(answer === 'no' ? 'Stopped at values confirmation' : 'Skipped: the operation was not planned').waitFor();
      await installReachesApproval();
      await page.screenshot({ path: join(SHOTS, `helm-after-${answer}.png`), fullPage: true });
    },
    TIMEOUT,
  );

  it(
    'a rejected plan, then an install in the same session reaches the plan approval',
    async () => {
      await newHelmSession();
      await installReachesApproval();
      // john may not approve (or reject) his own high-risk install: alice, an approver, rejects it from her inbox.
      await rejectAsAlice('not today');
      await page.getByText('Rejected at plan approval').waitFor();
      await expect.poll(() => page.getByTestId('approval-panel').count()).toBe(0);
      await installReachesApproval();
      await page.screenshot({ path: join(SHOTS, 'helm-after-reject.png'), fullPage: true });
    },
    TIMEOUT,
  );
});
