import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandRunner, execCommand } from '../../src/agents/helm/backends/cli/run-command.ts';
import type { PlanRequest } from '../../src/agents/helm/service/helm-service.ts';
import { type KubeApiStub, startKubeApiStub } from '../../src/testing/kube-api-stub/index.ts';
import type { HelmMajor } from '../../src/testing/real-helm-binaries.ts';
import { type RealHelmRig, startRealHelmRig } from './support/real-helm-rig.ts';

const CHART = new URL('./charts-extra/tested-1.0.0', import.meta.url).pathname;
/** A throwaway self-signed certificate for 127.0.0.1 (fixtures/tls/README.md). */
const TLS = new URL('./fixtures/tls/', import.meta.url).pathname;
const TOKEN = 'kubetoken-4f1c9e0b7d2a';
/** Generous for a loaded 2-core machine; not a timed assertion. */
const REAL_BINARY_TIMEOUT_MS = 120_000;

interface KubectlCall {
  readonly args: readonly string[];
  readonly kubeconfig: string | undefined;
  readonly mode: number | undefined;
  readonly folderMode: number | undefined;
  readonly userFile: string | undefined;
}

// Issue 30 (review 2026-11-26 E7): Helm reads HELM_KUBEAPISERVER, HELM_KUBECAFILE and HELM_KUBETOKEN
// itself; kubectl ignores them. The cluster here is a TLS stub that refuses requests without the
// bearer token, and the kubeconfig both tools are given points at another stub (the decoy, plain
// HTTP, no token): Helm reaches the cluster, and kubectl (prerequisites, strict check, health) must
// reach the same one as the same identity, with the token never on its command line.
describe('kubectl reaches the cluster Helm reaches, with the same token', () => {
  let rig: RealHelmRig;
  let cluster: KubeApiStub;
  beforeAll(async () => {
    rig = await startRealHelmRig({ name: 'route', charts: [{ path: CHART }] });
    cluster = await startKubeApiStub({
      tls: { cert: readFileSync(join(TLS, 'cert.pem'), 'utf8'), key: readFileSync(join(TLS, 'key.pem'), 'utf8') },
      bearerToken: TOKEN,
    });
  }, REAL_BINARY_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.close();
    await rig?.close();
  });

  it.each(['v3', 'v4'] as const)(
    'Helm %s: an install planned and run through HELM_KUBEAPISERVER, HELM_KUBECAFILE and HELM_KUBETOKEN',
    async (major: HelmMajor) => {
      const kubectlCalls: KubectlCall[] = [];
      const recording: CommandRunner = (file, args, options) => {
        if (file.endsWith('kubectl')) {
          const kubeconfig = options.env.KUBECONFIG?.split(':')[0];
          const userFile = kubeconfig && existsSync(kubeconfig) ? readFileSync(kubeconfig, 'utf8') : undefined;
          kubectlCalls.push({
            args,
            kubeconfig,
            mode: userFile ? statSync(kubeconfig!).mode & 0o777 : undefined,
            folderMode: userFile ? statSync(dirname(kubeconfig!)).mode & 0o777 : undefined,
            userFile,
          });
        }
        return execCommand(file, args, options);
      };
      const env = {
        ...rig.env(),
        HELM_KUBEAPISERVER: cluster.url,
        HELM_KUBECAFILE: join(TLS, 'cert.pem'),
        HELM_KUBETOKEN: TOKEN,
      };
      const helm = rig.service(major, { env, run: recording });
      const install: PlanRequest = { operation: 'install', release: `routed-${major}`, namespace: 'default', chart: 'tested' };
      const decoyRequests = rig.stub.requests.length;

      const plan = await helm.plan(install);
      const done = await helm.execute(install, plan.planHash);

      expect(done.status).toMatchObject({ info: { status: 'deployed' } });
      expect(cluster.object('v1', 'ConfigMap', 'default', `routed-${major}-config`)).toBeDefined();
      // Every kubectl request reached the cluster with the token; none went to the kubeconfig's server.
      expect(cluster.unauthorized).toEqual([]);
      expect(rig.stub.requests.slice(decoyRequests)).toEqual([]);
      expect(cluster.requests.some((request) => request.includes('dryRun=All'))).toBe(true);
      expect(kubectlCalls.length).toBeGreaterThan(2);
      for (const call of kubectlCalls) {
        expect(call.args.join(' ')).not.toContain(TOKEN);
        expect(call.args).toEqual(expect.arrayContaining(['--server', cluster.url, '--certificate-authority', env.HELM_KUBECAFILE]));
        expect(call.userFile).toContain(TOKEN);
        expect([call.mode, call.folderMode]).toEqual([0o600, 0o700]);
        expect(existsSync(call.kubeconfig!)).toBe(false);
      }
    },
    REAL_BINARY_TIMEOUT_MS,
  );
});
