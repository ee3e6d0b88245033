import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostRepository } from '../../src/agents/troubleshoot/hosts/host-repository.ts';
import { createTroubleshootParts, troubleshootAgent } from '../../src/agents/troubleshoot/index.ts';
import { sshdAvailable, startTestSshd, type TestSshd } from '../support/sshd.ts';
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

const SHOTS = join(ROOT, 'test-results', 'web');
const TIMEOUT = 90_000;

describe.skipIf(!chromiumAvailable || !sshdAvailable())(
  'troubleshoot in the browser: live read-only terminal, Read Output & Continue (real sshd)',
  () => {
    let sshd: TestSshd;
    let server: WebServer;
    let browser: Browser;
    let page: Page;
    // alice (an approver) approves john's commands here; low-risk ones john could approve himself.
    let approverPage: Page;

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      buildWeb();
      sshd = await startTestSshd();
      // A short soft timeout so that a 4-second command shows the continue button (AR-12; default 2 minutes).
      const agent = {
        ...troubleshootAgent,
        setup: (context: Parameters<typeof troubleshootAgent.setup>[0]) => createTroubleshootParts(context, { softTimeoutMs: 1500 }),
      };
      server = await startWebServer({
        agents: [agent],
        prepare: async (store, secrets) => {
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
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await page.goto(`${server.url}/`);
      await page.getByLabel('Username').fill('john_doe');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('new-troubleshoot').click();
      await page.waitForURL(/#\/sessions\//);
      approverPage = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await approverPage.goto(`${server.url}/`);
      await approverPage.getByLabel('Username').fill('alice');
      await approverPage.getByLabel('Password').fill(PASSWORD);
      await approverPage.getByRole('button', { name: 'Sign in' }).click();
      await approverPage.getByTestId('who').waitFor();
    }, TIMEOUT);

    afterAll(async () => {
      await releaseChromium(browser);
      await server?.close();
      await sshd?.stop();
    });

    const approveAsAlice = async () => {
      await approverPage.goto(page.url());
      await approverPage.reload();
      await approveInPanel(approverPage);
      await approverPage.waitForFunction(() => !document.querySelector('[data-testid="approval-panel"]'), undefined, { timeout: 30_000 });
    };

    const say = async (text: string) => {
      await page.getByLabel('Message').fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
    };

    it(
      'AR-01 AR-08: the command waits for approval with the validator verdict, then its output appears live in the terminal; suggestion chips follow (AR-21)',
      async () => {
        await say('run echo hello-from-$((6*7))');
        await page.getByTestId('approval-panel').waitFor();
        await expect.poll(() => page.getByTestId('approval-args').textContent()).toContain('echo hello-from-$((6*7))');
        await expect.poll(() => page.getByTestId('verdict').textContent()).toContain('allowed');
        // echo is a low-risk command: john may approve it himself, and so may the approver and the admin.
        await expect.poll(() => page.getByTestId('eligible-approvers').textContent()).toBe('admin, alice, john_doe');
        await approveAsAlice();
        await page.locator('[data-testid="terminal"] .xterm-rows').getByText('hello-from-42').first().waitFor();
        await page.getByTestId('suggestions').getByRole('button', { name: 'disk full' }).waitFor();
        await page.screenshot({ path: join(SHOTS, '13-terminal.png'), fullPage: true });
      },
      TIMEOUT,
    );

    it(
      'AR-12: a command past its soft timeout shows "Read Output & Continue", and continuing reads the rest',
      async () => {
        await say('run sleep 4; echo finished-sleeping');
        await page.getByTestId('approval-panel').waitFor();
        await approveAsAlice();
        await page.getByTestId('continue-panel').waitFor({ timeout: 30_000 });
        await page.screenshot({ path: join(SHOTS, '14-read-output-continue.png'), fullPage: true });
        await page.getByRole('button', { name: 'Read Output & Continue' }).click();
        await page.locator('[data-testid="terminal"] .xterm-rows').getByText('finished-sleeping').first().waitFor({ timeout: 30_000 });
        await page.waitForFunction(() => !document.querySelector('[data-testid="continue-panel"]'), undefined, { timeout: 30_000 });
      },
      TIMEOUT,
    );
  },
);
