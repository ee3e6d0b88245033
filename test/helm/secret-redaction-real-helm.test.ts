import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { HelmMcpClient } from '../../src/agents/helm/mcp/mcp-client.ts';
import { createHelmMcpServer } from '../../src/agents/helm/mcp/mcp-server.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

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
  let rig: RealHelmRig;
  let client: HelmMcpClient;
  beforeAll(async () => {
    rig = await startRealHelmRig({ name: 'redaction', chartRepository: await ChartRepository.open() });
    await rig.helm('v4', ['install', 'tok', chart, '--namespace', 'default']);
    client = await HelmMcpClient.inProcess(createHelmMcpServer(rig.service('v4')));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await rig?.close();
  });

  it('the stored release holds the secret, so the assertions below can fail', async () => {
    expect(leaks(await rig.helm('v4', ['get', 'manifest', 'tok']))).toEqual([SECRET, Buffer.from(SECRET).toString('base64')]);
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
