import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeployAgent } from './deploy-agent.ts';
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

describe.skipIf(!chromiumAvailable)('question panel, phase stepper, diff preview and Modify in Chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let page: Page;
  const scaled: number[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildWeb();
    server = await startWebServer({ agents: [createDeployAgent(scaled)] });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
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

  async function newSession(): Promise<void> {
    await page.goto(`${server.url}/#/`);
    await page.getByTestId('new-deploy').click();
    await page.waitForURL(/#\/sessions\//);
    await page.getByLabel('Message').fill('scale web');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('question-panel').waitFor();
  }

  it(
    'AR-13: Yes leads to an approval with the values diff; Modify is re-validated on the server and the edited call runs',
    async () => {
      await newSession();
      await expect.poll(() => page.getByTestId('phase-stepper').textContent()).toContain('Values confirmation');
      for (const answer of ['yes', 'no', 'skip', 'custom']) await page.getByTestId(`answer-${answer}`).waitFor();
      await page.screenshot({ path: join(SHOTS, '15-question.png'), fullPage: true });
      await page.getByTestId('answer-yes').click();
      await page.getByTestId('approval-panel').waitFor();
      const diff = page.getByTestId('approval-panel').getByTestId('preview-diff');
      await expect.poll(() => diff.locator('.add').textContent()).toContain('+replicas: 3');
      await expect.poll(() => diff.locator('.del').textContent()).toContain('-replicas: 1');
      await page.screenshot({ path: join(SHOTS, '16-approval-diff.png'), fullPage: true });
      // Issue 31, item 7: a values form, not JSON; the exact JSON stays one click away.
      await page.getByTestId('modify').click();
      expect(await page.getByTestId('modify-form').innerText()).not.toContain('planHash');
      await page.getByTestId('modify-replicas').fill('99');
      await page.getByRole('button', { name: 'Submit the change' }).click();
      await page.getByTestId('chat-error').waitFor();
      await expect.poll(() => page.getByTestId('chat-error').textContent()).toMatch(/invalid/i);
      expect(scaled).toEqual([]);
      await page.getByTestId('approval-panel').waitFor();
      await page.getByTestId('modify').click();
      await page.getByRole('button', { name: 'Edit the exact arguments (JSON)' }).click();
      await page.getByTestId('modify-args').fill('{ "replicas": 5 }');
      await page.getByRole('button', { name: 'Submit the change' }).click();
      await page.getByText('Scaled to 5 replicas.').waitFor();
      expect(scaled).toEqual([5]);
      // The edited call reads as the edit it was, never as "blocked" or "rejected".
      await expect
        .poll(() => page.getByTestId('modification').last().textContent())
        .toMatch(/^\w+ changed replicas 3 → 5; the changed request replaces this one$/);
    },
    TIMEOUT,
  );

  it(
    'AR-13: Custom sends free text and Skip goes on without a change',
    async () => {
      await newSession();
      await page.getByTestId('answer-custom').fill('only on Friday');
      await page.getByRole('button', { name: 'Answer' }).click();
      await page.getByText('You said: only on Friday').waitFor();
      await newSession();
      await page.getByTestId('answer-skip').click();
      await page.getByText('Okay, nothing changed (skip).').waitFor();
      expect(scaled).toEqual([5]);
    },
    TIMEOUT,
  );
});
