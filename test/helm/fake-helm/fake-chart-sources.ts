/**
 * The fake helm's chart sources outside opsgate: `helm repo` repositories (by name, as `helm repo
 * add` names them) and OCI registries (by `oci://HOST/PATH` prefix), each a folder of
 * `NAME-VERSION.tgz` archives (`buildRepository` writes them). `helm pull` and `helm search repo`
 * answer from them with Helm's texts; origins (helm/helm v3.21.4):
 * - `repo X not found`: pkg/downloader/chart_downloader.go:318;
 * - `chart "N" matching V not found in R index. (try 'helm repo update'): no chart version found
 *   for N-V`: chart_downloader.go:257 wrapping pkg/repo/index.go:222;
 * - `Pulled: REF` / `Digest: sha256:…` on stdout for OCI: pkg/registry/client.go:678-679;
 * - OCI tag missing: oras-go's `failed to perform "FetchReference" on source: REF: not found`, as
 *   quoted from a real `helm pull oci://registry.k8s.io/nfd/charts/node-feature-discovery:0.19.0`
 *   in kubernetes/k8s.io pull request #9706;
 * - search lines `NAME\vREPO/NAME\vDESCRIPTION\vKEYWORDS` matched by `--regexp`:
 *   cmd/helm/search/search.go indstr and SearchRegexp.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadChartArchive } from '../../../src/agents/helm/charts/load-chart.ts';
import { splitChartString } from '../../../src/agents/helm/service/helm-service.ts';

export interface FakeChartSources {
  /** `helm repo` name → folder of archives. */
  readonly repositories?: Readonly<Record<string, string>>;
  /** `oci://HOST/PATH` → folder of archives (`oci://HOST/PATH/NAME` pulls NAME). */
  readonly registries?: Readonly<Record<string, string>>;
}

type Fail = (message: string) => never;

function archives(dir: string): Array<{ name: string; version: string; file: string }> {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.tgz'))
    .map((file) => ({ ...splitChartString(file.slice(0, -'.tgz'.length)), file: join(dir, file) }));
}

/** Newest first by numeric MAJOR.MINOR.PATCH (enough for the fixtures; Helm uses Masterminds semver). */
function newest<T extends { version: string }>(found: T[]): T | undefined {
  const key = (v: string) => v.split(/[.-]/).slice(0, 3).map(Number);
  return [...found].sort((a, b) => {
    const [x, y] = [key(a.version), key(b.version)];
    return y[0]! - x[0]! || y[1]! - x[1]! || y[2]! - x[2]!;
  })[0];
}

/** `helm pull REF [--version V] --destination DIR`: copies the archive as NAME-VERSION.tgz; stdout as Helm prints it. */
export function fakePull(sources: FakeChartSources, reference: string, flags: ReadonlyMap<string, string>, fail: Fail): string {
  const version = flags.get('--version') ?? '';
  const destination = flags.get('--destination') ?? flags.get('-d') ?? '.';
  if (reference.startsWith('oci://')) {
    const slash = reference.lastIndexOf('/');
    const [prefix, name] = [reference.slice(0, slash), reference.slice(slash + 1)];
    const dir = sources.registries?.[prefix];
    const candidates = dir ? archives(dir).filter((a) => a.name === name) : [];
    const found = version ? candidates.find((a) => a.version === version) : newest(candidates);
    const ref = `${reference.slice('oci://'.length)}:${version || 'latest'}`;
    if (!found) fail(`failed to perform "FetchReference" on source: ${ref}: not found`);
    copyFileSync(found.file, join(destination, `${found.name}-${found.version}.tgz`));
    const digest = createHash('sha256').update(readFileSync(found.file)).digest('hex');
    return `Pulled: ${reference.slice('oci://'.length)}:${found.version}\nDigest: sha256:${digest}\n`;
  }
  const [repo = '', name = ''] = reference.split('/');
  const dir = sources.repositories?.[repo];
  if (!dir) fail(`repo ${repo} not found`);
  const candidates = archives(dir).filter((a) => a.name === name);
  const found = version ? candidates.find((a) => a.version === version) : newest(candidates);
  if (!found)
    fail(
      `chart "${name}" matching ${version} not found in ${repo} index. (try 'helm repo update'): no chart version found for ${name}-${version}`,
    );
  copyFileSync(found.file, join(destination, `${found.name}-${found.version}.tgz`));
  return '';
}

/** `helm search repo PATTERN --regexp [--version V] -o json`: newest match per REPO/NAME. */
export async function fakeSearch(
  sources: FakeChartSources,
  pattern: string,
  flags: ReadonlyMap<string, string>,
  fail: Fail,
): Promise<string> {
  if (!flags.has('--regexp') && !flags.has('-r')) fail('the fake searches with --regexp only');
  // Go's \v is JavaScript's \v: the pattern opsgate sends reads the same in both.
  const matcher = new RegExp(pattern);
  const version = flags.get('--version');
  const rows: Array<{ name: string; version: string; app_version: string; description: string }> = [];
  for (const [repo, dir] of Object.entries(sources.repositories ?? {})) {
    const byName = new Map<string, Array<{ name: string; version: string; file: string }>>();
    for (const archive of archives(dir)) byName.set(archive.name, [...(byName.get(archive.name) ?? []), archive]);
    for (const [name, versions] of byName) {
      const chosen = version ? versions.find((v) => v.version === version) : newest(versions);
      if (!chosen) continue;
      const chart = await loadChartArchive(readFileSync(chosen.file));
      const line = `${name}\v${repo}/${name}\v${chart.metadata.description ?? ''}\v`;
      if (matcher.test(line))
        rows.push({
          name: `${repo}/${name}`,
          version: chosen.version,
          app_version: chart.metadata.appVersion ?? '',
          description: chart.metadata.description ?? '',
        });
    }
  }
  return `${JSON.stringify(rows)}\n`;
}
