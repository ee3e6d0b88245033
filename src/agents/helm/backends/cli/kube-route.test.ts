import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmOverrideFlags, helmRouteArgs, withKubectlRoute } from './kube-route.ts';

describe('kube-route: kubectl told what Helm reads from its environment', () => {
  it('maps each HELM_KUBE* override but the token to a kubectl flag', () => {
    expect(
      helmOverrideFlags({
        HELM_KUBEAPISERVER: 'https://api.example:6443',
        HELM_KUBECAFILE: '/etc/ca.pem',
        HELM_KUBETLS_SERVER_NAME: 'api.internal',
        HELM_KUBEINSECURE_SKIP_TLS_VERIFY: 'true',
        HELM_KUBEASUSER: 'deployer',
        HELM_KUBEASGROUPS: 'team-a, ops',
        HELM_KUBETOKEN: 'never-on-argv',
      }),
    ).toEqual([
      '--server',
      'https://api.example:6443',
      '--certificate-authority',
      '/etc/ca.pem',
      '--tls-server-name',
      'api.internal',
      '--insecure-skip-tls-verify',
      '--as',
      'deployer',
      '--as-group',
      'team-a',
      '--as-group',
      'ops',
    ]);
    expect(helmOverrideFlags({ HELM_KUBEINSECURE_SKIP_TLS_VERIFY: 'false' })).toEqual([]);
  });

  it('gives helm the registered context and file, and kubectl the same (HELM_KUBECONTEXT when none is registered)', async () => {
    expect(helmRouteArgs({ kubeContext: 'prod', kubeconfig: '/k/config' })).toEqual([
      '--kube-context',
      'prod',
      '--kubeconfig',
      '/k/config',
    ]);
    const seen = await withKubectlRoute({ kubeconfig: '/k/config' }, { HELM_KUBECONTEXT: 'ci' }, async (args, env) => ({ args, env }));
    expect(seen.args).toEqual(['--context', 'ci', '--kubeconfig', '/k/config']);
    expect(seen.env.KUBECONFIG).toBeUndefined();
  });

  it('puts HELM_KUBETOKEN in a private kubeconfig listed before the admin file, never on the command line, and removes it', async () => {
    const seen = await withKubectlRoute({ kubeconfig: '/k/config' }, { HELM_KUBETOKEN: 'tok-123' }, async (args, env) => {
      const [overlay, admins] = String(env.KUBECONFIG).split(':');
      return {
        args,
        overlay: overlay!,
        admins,
        text: readFileSync(overlay!, 'utf8'),
        modes: [statSync(overlay!).mode & 0o777, statSync(dirname(overlay!)).mode & 0o777],
      };
    });
    expect(seen.args).toEqual(['--user', 'opsgate-helm-kubetoken']);
    expect(seen.admins).toBe('/k/config');
    expect(JSON.parse(seen.text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      users: [{ name: 'opsgate-helm-kubetoken', user: { token: 'tok-123' } }],
    });
    expect(seen.modes).toEqual([0o600, 0o700]);
    expect(existsSync(seen.overlay)).toBe(false);
  });

  it('keeps the admin chain from $KUBECONFIG, else ~/.kube/config of the given HOME, and cleans up when kubectl fails', async () => {
    let overlay = '';
    await expect(
      withKubectlRoute({}, { HELM_KUBETOKEN: 't', KUBECONFIG: '/a:/b' }, async (_args, env) => {
        overlay = String(env.KUBECONFIG).split(':')[0]!;
        expect(String(env.KUBECONFIG).split(':').slice(1)).toEqual(['/a', '/b']);
        throw new Error('kubectl failed');
      }),
    ).rejects.toThrow('kubectl failed');
    expect(existsSync(overlay)).toBe(false);
    const home = await withKubectlRoute({}, { HELM_KUBETOKEN: 't', HOME: '/home/ops' }, async (_args, env) => env.KUBECONFIG);
    expect(String(home).split(':')[1]).toBe('/home/ops/.kube/config');
  });
});
