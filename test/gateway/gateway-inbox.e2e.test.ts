import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb, chromiumAvailable, launchChromium, PASSWORD, releaseChromium } from '../web/web-harness.ts';
import { auditEvents, type GatewayRig, startGatewayRig, textOf, waitForPending } from './gateway-harness.ts';

const TIMEOUT = 90_000;

describe.skipIf(!chromiumAvailable)('gateway approvals in the web inbox (Chromium)', () => {
  let rig: GatewayRig;
  let browser: Browser;

  async function signIn(username: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${rig.web.url}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    return page;
  }

  beforeAll(async () => {
    buildWeb();
    rig = await startGatewayRig();
    browser = await launchChromium();
  }, TIMEOUT);

  afterAll(async () => {
    await releaseChromium(browser);
    await rig?.close();
  });

  it(
    "john_doe's own elicitation cannot approve his high-risk write_file; alice approves it in the inbox and the file is written once",
    async () => {
      const client = await rig.connect('john_doe', { elicitation: true });
      const elicited: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicited.push(request.params.message);
        return { action: 'accept', content: { decision: 'keep waiting' } };
      });
      const target = join(rig.files, 'from-the-inbox.txt');
      const progress: string[] = [];
      const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'approved by alice' } }, undefined, {
        timeout: 60_000,
        onprogress: (p) => progress.push(p.message ?? ''),
      });
      const { pending } = await waitForPending(rig, 'alice', 'write_file');
      await expect.poll(() => elicited.length).toBe(1);
      expect(elicited[0]).toContain(target);
      // He may not approve it (separation of duties): the elicitation offers him only to withdraw it.
      expect(elicited[0]).toMatch(/Waiting for admin or alice to approve it in the opsgate inbox\. You may withdraw the call\./);
      expect(existsSync(target)).toBe(false);

      const page = await signIn('alice');
      await page.goto(`${rig.web.url}/#/inbox`);
      const item = page.locator(`[data-testid="inbox-item"][data-call-id="${pending.interrupt.callId}"]`);
      await expect.poll(async () => item.locator('pre.args').textContent()).toContain('approved by alice');
      expect(await item.getByTestId('inbox-title').textContent()).toMatch(/^john_doe asks: files__write_file\s*high$/);
      // High risk: the inbox asks once more before approving (issue 31, item 1).
      await item.getByTestId('inbox-approve').click();
      await item.getByTestId('inbox-confirm-approve').click();

      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(readFileSync(target, 'utf8')).toBe('approved by alice');
      const executed = (await auditEvents(rig, 'tool_executed')).filter((e) => e.payload.callId === pending.interrupt.callId);
      expect(executed).toHaveLength(1);
      const approved = (await auditEvents(rig, 'tool_approved')).filter((e) => e.payload.callId === pending.interrupt.callId);
      expect(approved.map((e) => e.actor)).toEqual(['user:alice']);
    },
    TIMEOUT,
  );

  it(
    'alice rejects in the inbox with a reason: the file stays untouched and the client reads the reason',
    async () => {
      const client = await rig.connect('john_doe');
      const target = join(rig.files, 'rejected-in-inbox.txt');
      const call = client.callTool({ name: 'files__write_file', arguments: { path: target, content: 'no' } }, undefined, {
        timeout: 60_000,
      });
      const { pending } = await waitForPending(rig, 'alice', 'write_file');
      const page = await signIn('alice');
      await page.goto(`${rig.web.url}/#/inbox`);
      const item = page.locator(`[data-testid="inbox-item"][data-call-id="${pending.interrupt.callId}"]`);
      // The reason box opens on Reject, beside Approve (issue 31, item 9).
      await item.getByTestId('inbox-reject').click();
      await item.getByTestId('inbox-reject-reason').fill('use the shared drive instead');
      await item.getByTestId('inbox-reject-submit').click();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Rejected by alice: use the shared drive instead');
      expect(existsSync(target)).toBe(false);
    },
    TIMEOUT,
  );
});
