import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseModel, createConfiguredModel } from '../../src/core/model/index.ts';
import {
  buildWeb,
  chromiumAvailable,
  launchChromium,
  PASSWORD,
  ROOT,
  releaseChromium,
  startWebServer,
  type WebServer,
} from '../web/web-harness.ts';
import { WireServer } from './wire-server.ts';

const SHOTS = join(ROOT, 'test-results', 'web');
const TIMEOUT = 90_000;

/**
 * A real provider (Anthropic Messages over the wire server) behind the web UI: the model's change
 * pauses, another person approves it in Chromium, the turn resumes, and the session page shows
 * what the model steps used and cost.
 */
describe.skipIf(!chromiumAvailable)('an approval in the web UI with a real provider over the wire', () => {
  const wire = new WireServer();
  let server: WebServer;
  let browser: Browser;

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
    await wire.start();
    const env = { ...wire.env('anthropic', 'claude-sonnet-4-5'), OPSGATE_MODEL_PRICE: '' };
    const model = createConfiguredModel(chooseModel(env)!, env);
    server = await startWebServer({ model: () => model });
    browser = await launchChromium();
  }, TIMEOUT);
  afterAll(async () => {
    await releaseChromium(browser);
    await server?.close();
    await wire.stop();
  });

  it(
    "john's request pauses, alice approves it in her browser, john's page shows the answer and the session's tokens and cost",
    async () => {
      wire.script(
        'anthropic',
        { kind: 'tools', calls: [{ name: 'grant_access_to_user', args: { access_name: 'DB_READ_DEV', reason: 'debugging' } }] },
        { kind: 'text', text: 'DB_READ_DEV is yours now.' },
      );
      const john = await signIn('john_doe');
      await john.getByTestId('new-access').click();
      await john.waitForURL(/#\/sessions\//);
      const sessionUrl = john.url();
      await john.getByLabel('Message').fill('I need DB_READ_DEV to debug a migration');
      await john.getByRole('button', { name: 'Send' }).click();
      await john.getByTestId('approval-panel').waitFor();

      const alice = await signIn('alice');
      await alice.goto(sessionUrl);
      const panel = alice.getByTestId('approval-panel');
      await panel.waitFor();
      expect(await panel.textContent()).toContain('DB_READ_DEV');
      await panel.getByRole('button', { name: 'Approve' }).click();

      await expect.poll(() => john.getByText('DB_READ_DEV is yours now.').count(), { timeout: 20_000 }).toBe(1);
      const usage = john.getByTestId('usage-summary');
      // Two model steps at the wire server's reported 321 input + 54 output tokens each, Claude Sonnet 4.5's list price ($3/$15 per million).
      await expect
        .poll(() => usage.locator('summary').textContent(), { timeout: 20_000 })
        .toBe('Model usage: 642 input + 108 output tokens in 2 steps · $0.0035');
      await usage.locator('summary').click();
      expect(await usage.locator('tbody tr').first().textContent()).toBe('12642108$0.0035');
      await john.screenshot({ path: join(SHOTS, '60-real-provider-usage.png'), fullPage: true });
      expect(wire.violations()).toEqual([]);
    },
    TIMEOUT,
  );
});
