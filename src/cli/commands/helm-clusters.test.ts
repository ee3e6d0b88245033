import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../core/audit/index.ts';
import { openStore } from '../../core/store/index.ts';
import { main } from '../main.ts';

function run(args: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  return main(args, { stdout, stderr, stdin: Readable.from(['']), env }).then((code) => ({ code, out, err }));
}

describe('opsgate helm-clusters', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opsgate-helm-clusters-'));
    env = { OPSGATE_DATA_DIR: dir, USER: 'ops' };
    for (const file of ['prod.kubeconfig', 'edge.kubeconfig'])
      writeFileSync(join(dir, file), 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('adds, lists and removes clusters, on the record as the local administrator', async () => {
    const added = await run(
      [
        'helm-clusters',
        'add',
        'prod-eu',
        '--context',
        'gke_prod',
        '--kubeconfig',
        join(dir, 'prod.kubeconfig'),
        '--environment',
        'production',
        '--namespaces',
        'shop, web',
      ],
      env,
    );
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toContain(
      `added cluster prod-eu (production, context gke_prod (${join(dir, 'prod.kubeconfig')}), namespaces shop,web)`,
    );
    expect(
      await run(['helm-clusters', 'add', 'dev', '--context', 'kind-dev', '--environment', 'dev', '--namespaces', '*'], env),
    ).toMatchObject({ code: 0 });
    expect(
      await run(['helm-clusters', 'add', 'here', '--in-cluster', '--environment', 'staging', '--namespaces', 'apps'], env),
    ).toMatchObject({ code: 0, out: "added cluster here (staging, in-cluster (the server's default context), namespaces apps)\n" });
    expect(
      await run(
        ['helm-clusters', 'add', 'edge', '--kubeconfig', join(dir, 'edge.kubeconfig'), '--environment', 'dev', '--namespaces', 'a'],
        env,
      ),
    ).toMatchObject({ code: 0 });
    const listed = await run(['helm-clusters', 'list'], env);
    expect(listed.out).toBe(
      [
        'dev\tdev\tcontext kind-dev\tnamespaces *',
        `edge\tdev\tcurrent context (${join(dir, 'edge.kubeconfig')})\tnamespaces a`,
        "here\tstaging\tin-cluster (the server's default context)\tnamespaces apps",
        `prod-eu\tproduction\tcontext gke_prod (${join(dir, 'prod.kubeconfig')})\tnamespaces shop,web`,
        '',
      ].join('\n'),
    );
    for (const name of ['edge', 'here']) expect(await run(['helm-clusters', 'remove', name], env)).toMatchObject({ code: 0 });
    expect(await run(['helm-clusters', 'remove', 'dev'], env)).toMatchObject({ code: 0, out: 'removed cluster dev\n' });
    expect((await run(['helm-clusters', 'list'], env)).out).not.toContain('kind-dev');
    const store = await openStore({ dataDir: dir, databaseUrl: '' });
    const audit = new AuditLog(store);
    const events = await audit.list();
    expect(events.filter((e) => e.type.startsWith('helm_cluster_')).map((e) => [e.type, e.payload.name, e.payload.by])).toEqual([
      ['helm_cluster_added', 'prod-eu', 'local-admin'],
      ['helm_cluster_added', 'dev', 'local-admin'],
      ['helm_cluster_added', 'here', 'local-admin'],
      ['helm_cluster_added', 'edge', 'local-admin'],
      ['helm_cluster_removed', 'edge', 'local-admin'],
      ['helm_cluster_removed', 'here', 'local-admin'],
      ['helm_cluster_removed', 'dev', 'local-admin'],
    ]);
    await audit.close();
    await store.close();
  });

  it.each([
    [['helm-clusters'], /expected "add", "list" or "remove"/],
    [['helm-clusters', 'add', 'x', '--context', 'c', '--environment', 'dev'], /needs --environment and --namespaces/],
    [['helm-clusters', 'add', 'x', '--environment', 'dev', '--namespaces', 'a'], /--context and\/or --kubeconfig, or --in-cluster alone/],
    [['helm-clusters', 'add', 'x', '--in-cluster', '--context', 'c', '--environment', 'dev', '--namespaces', 'a'], /--in-cluster alone/],
    [['helm-clusters', 'add', '--context', 'c', '--environment', 'dev', '--namespaces', 'a'], /takes 1 positional argument/],
    [['helm-clusters', 'add', 'Bad Name', '--context', 'c', '--environment', 'dev', '--namespaces', 'a'], /the name "Bad Name"/],
    [['helm-clusters', 'add', 'x', '--context', 'c', '--environment', 'dev', '--namespaces', 'a', '--kubeconfig', 'rel'], /absolute path/],
    [['helm-clusters', 'list', '--context', 'c'], /options belong to "helm-clusters add"/],
    [['helm-clusters', 'add', 'x', '--bogus', 'y'], /bogus/],
  ])('exits 2 with a one-line error on bad arguments (%#)', async (args, message) => {
    const result = await run(args, env);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
    expect(result.err.trim().split('\n')).toHaveLength(1);
  });

  it('removing an unknown cluster fails with its code and what to do', async () => {
    const result = await run(['helm-clusters', 'remove', 'nowhere'], env);
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('[HELM_CLUSTER_UNKNOWN]');
  });
});
