import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type KubeApiStub, type KubeApiStubOptions, startKubeApiStub } from '../../src/testing/kube-api-stub/server.ts';
import { realHelmBinaries } from '../../src/testing/real-helm-binaries.ts';

const run = promisify(execFile);
const chart = new URL('../../src/agents/helm/charts/repo/webapp-1.0.0.tgz', import.meta.url).pathname;

// The stub answers the real clients (kubectl 1.35, Helm 3.17's storage), not a copy of them: the
// requests and bodies here are the binaries' own.
describe('the Kubernetes API stub with the real kubectl and helm', () => {
  let stub: KubeApiStub | undefined;
  let home: string | undefined;
  afterEach(async () => {
    await stub?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  async function start(options: KubeApiStubOptions = {}) {
    stub = await startKubeApiStub(options);
    home = mkdtempSync(join(tmpdir(), 'opsgate-kube-stub-'));
    writeFileSync(join(home, 'config'), stub.kubeconfig(), { mode: 0o600 });
    return {
      ...process.env,
      KUBECONFIG: join(home, 'config'),
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config.d'),
    };
  }

  it('creates, selects by label and refuses a forbidden verb with the API server text', async () => {
    const env = await start({ forbid: ['namespaces', 'secrets:delete'] });
    const { kubectl } = realHelmBinaries('v4');
    await run(kubectl, ['create', 'configmap', 'a', '--from-literal=k=v'], { env });
    await run(kubectl, ['label', 'configmap', 'a', 'tier=web'], { env });
    await run(kubectl, ['create', 'configmap', 'b'], { env });
    const selected = JSON.parse((await run(kubectl, ['get', 'configmaps', '-l', 'tier in (web)', '-o', 'json'], { env })).stdout) as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(selected.items.map((item) => item.metadata.name)).toEqual(['a']);
    await expect(run(kubectl, ['get', 'namespaces'], { env })).rejects.toMatchObject({
      stderr: expect.stringContaining(
        'namespaces is forbidden: User "system:serviceaccount:team-a:deployer" cannot list resource "namespaces"',
      ),
    });
    await run(kubectl, ['create', 'secret', 'generic', 's', '--from-literal=k=v'], { env });
    await expect(run(kubectl, ['delete', 'secret', 's'], { env })).rejects.toMatchObject({
      stderr: expect.stringContaining('cannot delete resource "secrets" in API group "" in the namespace "default"'),
    });
  });

  it('stores Helm 3 release Secrets sent as protobuf and rolls the Deployment out behind --wait', async () => {
    const env = await start({ rolloutDelayMs: 200 });
    const { helm } = realHelmBinaries('v3');
    await run(helm, ['install', 'web', chart, '--namespace', 'default', '--wait', '--timeout', '60s'], { env });
    const release = stub!.object('v1', 'Secret', 'default', 'sh.helm.release.v1.web.v1');
    expect(release?.metadata.labels).toMatchObject({ name: 'web', owner: 'helm', status: 'deployed' });
    expect(release?.type).toBe('helm.sh/release.v1');
    const deployment = stub!.object('apps/v1', 'Deployment', 'default', 'web-webapp')!;
    expect(deployment.status).toMatchObject({ readyReplicas: (deployment.spec as { replicas: number }).replicas, observedGeneration: 1 });
    const listed = JSON.parse((await run(helm, ['list', '--namespace', 'default', '-o', 'json'], { env })).stdout) as Array<{
      name: string;
      status: string;
    }>;
    expect(listed).toEqual([expect.objectContaining({ name: 'web', status: 'deployed' })]);
  });
});
