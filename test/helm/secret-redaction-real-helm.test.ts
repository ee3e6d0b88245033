import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmMcpClient } from '../../src/agents/helm/mcp/mcp-client.ts';
import { createHelmMcpServer } from '../../src/agents/helm/mcp/mcp-server.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import { realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);
const chart = new URL('./charts/tokens-1.0.0', import.meta.url).pathname;
// The chart's Secret carries the key under `data:` (base64) and inside a URL under `stringData:`.
const SECRET = 'plain-api-key-4711';
const leaks = (answer: unknown) => {
  const text = JSON.stringify(answer);
  return [SECRET, Buffer.from(SECRET).toString('base64')].filter((form) => text.includes(form));
};

// Issue 30 N4: every answer that carries a release's manifest hides its Secrets' values, the
// no-approval read paths included (the manifest resource returned them in clear). A release
// installed by the real Helm 4.1.4 into the stub API server; read through the Helm MCP server.
describe('no tool or resource of the Helm MCP server returns Secret data (real Helm 4.1.4)', () => {
  let stub: KubeApiStub;
  let home: string;
  let client: HelmMcpClient;
  beforeAll(async () => {
    stub = await startKubeApiStub();
    home = mkdtempSync(join(tmpdir(), 'opsgate-helm-redaction-'));
    const kubeconfig = join(home, 'config');
    writeFileSync(kubeconfig, stub.kubeconfig(), { mode: 0o600 });
    const binaries = realHelmBinaries('v4');
    await run(binaries.helm, ['install', 'tok', chart, '--namespace', 'default', '--kubeconfig', kubeconfig], {
      env: { ...process.env, HOME: home },
    });
    const backend = new HelmCli({ helmPath: binaries.helm, kubectlPath: binaries.kubectl, kubeconfig });
    client = await HelmMcpClient.inProcess(createHelmMcpServer(new HelmService(backend, await ChartRepository.open())));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await stub?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('the stored release holds the secret, so the assertions below can fail', async () => {
    expect(leaks(await run(realHelmBinaries('v4').helm, ['get', 'manifest', 'tok', '--kubeconfig', join(home, 'config')]))).toEqual([
      SECRET,
      Buffer.from(SECRET).toString('base64'),
    ]);
  });

  it.each([
    ['helm_get_release_status', { release: 'tok', namespace: 'default' }],
    ['helm_monitor_deployment', { release: 'tok', namespace: 'default', timeoutSeconds: 5 }],
    ['helm_get_installation_plan', { operation: 'uninstall', release: 'tok', namespace: 'default' }],
    ['helm_list_releases', {}],
  ] as const)('%s', async (tool, args) => {
    const answer = await client.call(tool, { ...args });
    expect(answer).not.toHaveProperty('error');
    expect(leaks(answer)).toEqual([]);
  });

  it('the resource helm://releases/default/tok/manifest', async () => {
    const contents = await client.readResource('helm://releases/default/tok/manifest');
    expect(contents[0]?.text).toContain('kind: Secret');
    expect(contents[0]?.text).toContain('hidden');
    expect(leaks(contents)).toEqual([]);
  });
});
