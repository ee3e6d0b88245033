import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRegistry, helmAgent } from '../../src/agents/helm/index.ts';
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

// Issue 20: the approval panel names the cluster a Helm change goes to (and marks production).
describe.skipIf(!chromiumAvailable)('the Helm plan approval names its cluster (Chromium)', () => {
  let server: WebServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildWeb();
    server = await startWebServer({
      agents: [helmAgent],
      prepare: async (store) => {
        await new ClusterRegistry(store).add({ name: 'prod-eu', kubeContext: 'kind-prod', environment: 'production', namespaces: ['*'] });
      },
    });
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

  it(
    'an install on the only registered cluster shows "Cluster prod-eu (production)" in the plan panel',
    async () => {
      await page.getByTestId('new-helm').click();
      await page.waitForURL(/#\/sessions\//);
      await page.getByLabel('Message').fill('install webapp as web set replicaCount=2');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByTestId('question-panel').waitFor();
      await page.getByTestId('answer-yes').click();
      await page.getByTestId('approval-panel').waitFor({ timeout: 60_000 });
      const cluster = page.getByTestId('plan-cluster');
      expect(await cluster.textContent()).toBe('Cluster prod-eu (production)');
      expect(await cluster.getAttribute('class')).toContain('env-production');
      expect(await page.getByTestId('approval-panel').textContent()).toContain('on cluster prod-eu (production)');
      await page.screenshot({ path: join(SHOTS, 'helm-cluster-approval.png'), fullPage: true });
    },
    TIMEOUT,
  );

  it(
    'an admin registers and removes a cluster on the admin screen; a bad namespace is refused with what to do',
    async () => {
      const admin = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
      await admin.goto(`${server.url}/`);
      await admin.getByLabel('Username').fill('admin');
      await admin.getByLabel('Password').fill(PASSWORD);
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.getByTestId('who').waitFor();
      await admin.goto(`${server.url}/#/admin`);
      const section = admin.getByTestId('admin-clusters');
      await section.getByTestId('cluster-prod-eu').waitFor();
      const form = admin.getByTestId('add-cluster');
      await form.getByLabel('Name', { exact: true }).fill('staging-eu');
      await form.getByLabel('Kube context (empty: in-cluster)').fill('kind-staging');
      const kubeconfig = join(server.dataDir, 'staging.kubeconfig');
      writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
      await form.getByLabel('Kubeconfig path (optional)').fill(kubeconfig);
      await form.getByLabel('Environment').fill('staging');
      await form.getByLabel('Namespaces (comma-separated, * for all)').fill('shop, Web_1');
      await form.getByRole('button', { name: 'Register cluster' }).click();
      await expect.poll(() => section.getByTestId('clusters-message').textContent()).toContain('"Web_1" is not a Kubernetes namespace');
      await form.getByLabel('Namespaces (comma-separated, * for all)').fill('shop, web');
      await form.getByRole('button', { name: 'Register cluster' }).click();
      await section.getByTestId('cluster-staging-eu').waitFor();
      expect(await section.getByTestId('cluster-staging-eu').textContent()).toContain('shop, web');
      await admin.screenshot({ path: join(SHOTS, 'helm-clusters-admin.png'), fullPage: true });
      admin.once('dialog', (dialog) => void dialog.accept());
      await section.getByTestId('cluster-staging-eu').getByRole('button', { name: 'Remove' }).click();
      await expect.poll(() => section.getByTestId('cluster-staging-eu').count()).toBe(0);
      expect((await new ClusterRegistry(server.store).list()).map((c) => c.name)).toEqual(['prod-eu']);
    },
    TIMEOUT,
  );
});
