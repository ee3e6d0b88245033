import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SHOTS = join(ROOT, 'test-results', 'web');
const TIMEOUT = 90_000;

describe.skipIf(!chromiumAvailable)("the approver's inbox in Chromium", () => {
  let server: WebServer;
  let browser: Browser;
  let sessionId: string;

  async function signIn(username: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    return page;
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildWeb();
    server = await startWebServer();
    browser = await launchChromium();
    const john = (await new UserRepository(server.store).findByName('john_doe'))!;
    const identity = { userId: john.id, username: john.username, roles: john.roles };
    sessionId = (await server.runtime.startSession({ agent: 'access', identity })).id;
    await server.runtime.send(sessionId, 'I need database access', identity);
    const proposal = await server.runtime.send(sessionId, 'Production, write', identity);
    expect(proposal.interrupt).toMatchObject({ tool: 'grant_access_to_user', args: { access_name: 'DB_WRITE_PROD' } });
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
  });

  it(
    'the requester sees who can approve and cannot approve his own write access',
    async () => {
      const page = await signIn('john_doe');
      expect(await page.getByTestId('inbox-badge').count()).toBe(0);
      await page.goto(`${server.url}/#/inbox`);
      await expect.poll(() => page.getByTestId('inbox-waiting').textContent()).toBe('Waiting for an approver: admin, alice');
      await page.goto(`${server.url}/#/sessions/${sessionId}`);
      await page.getByTestId('approval-panel').waitFor();
      await expect.poll(() => page.getByTestId('eligible-approvers').textContent()).toBe('Waiting for an approver: admin, alice');
      expect(await page.getByTestId('approval-policy').textContent()).toBe('state-changes-need-approval');
      // Approving is someone else's: he is offered to withdraw instead.
      expect(await page.getByTestId('approve').count()).toBe(0);
      expect(await page.getByTestId('withdraw').isEnabled()).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "alice's badge counts what waits for her; she sees john's session without a composer, approves from the inbox, and the history shows it",
    async () => {
      const page = await signIn('alice');
      await expect.poll(() => page.getByTestId('inbox-badge').textContent()).toBe('1');
      await page.goto(`${server.url}/#/sessions/${sessionId}`);
      await page.getByTestId('approval-panel').waitFor();
      await page.getByTestId('observer-note').waitFor();
      expect(await page.getByLabel('Message').count()).toBe(0);
      await page.getByRole('link', { name: /Approvals/ }).click();
      const item = page.getByTestId('inbox-item');
      await expect.poll(() => item.getByTestId('inbox-policy').textContent()).toBe('state-changes-need-approval');
      await page.screenshot({ path: join(SHOTS, '30-inbox.png'), fullPage: true });
      // A high-risk grant asks once more, as the session panel, Slack and the CLI do (issue 31, item 1).
      expect(await item.getByTestId('inbox-title').textContent()).toMatch(/^john_doe asks: DB_WRITE_PROD for john_doe, \d+ days\s*high$/);
      await item.getByTestId('inbox-approve').click();
      expect(await item.getByTestId('inbox-confirm-text').textContent()).toMatch(/^High risk: approve “DB_WRITE_PROD for john_doe/);
      await item.getByRole('button', { name: 'Cancel' }).click();
      await item.getByTestId('inbox-approve').click();
      await item.getByTestId('inbox-confirm-approve').click();
      await page
        .getByTestId('inbox-feedback')
        .getByText(/^Approved: john_doe's “DB_WRITE_PROD/)
        .waitFor();
      await page.getByTestId('inbox-empty').waitFor();
      await expect.poll(() => page.getByTestId('inbox-history').locator('tbody tr').first().textContent()).toContain('executed');
      expect(await page.getByTestId('inbox-history').locator('tbody tr').first().textContent()).toContain('alice');
      await expect.poll(() => page.getByTestId('inbox-badge').count()).toBe(0);
    },
    TIMEOUT,
  );
});
