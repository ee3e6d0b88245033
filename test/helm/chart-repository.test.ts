import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';

const HELM = new URL('./fixtures/helm-testdata/', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(HELM, file), 'utf8');
const repoFrom = (file: string, name = 'testing') => ChartRepository.fromIndex(read(file), { directory: tmpdir(), name, source: file });

/** Row 1 of a `helm search repo` golden: name, chart version, app version. */
function searchGolden(file: string): { name: string; version: string; app_version: string } {
  const [, row = ''] = read(`output/${file}`).split('\n');
  const [name = '', version = '', appVersion = ''] = row.split('\t').map((cell) => cell.trim());
  return { name, version, app_version: appVersion };
}

describe("chart repository index: Helm's loadIndex, IndexFile.Get and ResolveReferenceURL", () => {
  it("reads Helm's local, unordered and chartmuseum indexes the way verifyLocalIndex expects", () => {
    for (const file of ['local-index.yaml', 'local-index-unordered.yaml', 'chartmuseum-index.yaml']) {
      const repo = repoFrom(file);
      expect(repo.warnings, file).toEqual([]);
      expect(
        repo.versions('nginx').map((v) => v.version),
        file,
      ).toEqual(['0.2.0', '0.1.0']);
      expect(repo.entry('alpine').urls, file).toEqual([
        'https://charts.helm.sh/stable/alpine-1.0.0.tgz',
        'http://storage2.googleapis.com/kubernetes-charts/alpine-1.0.0.tgz',
      ]);
      expect(() => repo.archiveUrl(repo.entry('chartWithNoURL')), file).toThrow(expect.objectContaining({ code: 'HELM_CHART_INVALID' }));
    }
  });

  it('picks the newest stable version by default and a prerelease only with devel (search goldens)', () => {
    const repo = repoFrom('testing-index.yaml');
    const stable = searchGolden('search-multiple-stable-release.txt');
    const devel = searchGolden('search-multiple-devel-release.txt');
    expect(stable.version).toBe('0.2.0');
    expect(devel.version).toBe('0.3.0-rc.1');
    const found = (items: ReturnType<typeof repo.search>) =>
      items.map(({ name, version, app_version }) => ({ name, version, app_version }));
    expect(found(repo.search('alpine'))).toEqual([stable]);
    expect(found(repo.search('alpine', { devel: true }))).toEqual([devel]);
    expect(repo.entry('alpine').version).toBe(stable.version);
    expect(repo.entry('alpine', undefined, { devel: true }).version).toBe(devel.version);
    // --version is a Masterminds constraint, commas included.
    expect(repo.entry('alpine', '>= 0.1, < 0.2').version).toBe(searchGolden('search-constraint.txt').version);
    expect(repo.entry('alpine', '>= 0.1').version).toBe(searchGolden('search-constraint-single.txt').version);
    expect(repo.entry('alpine', '0.3.0-rc.1').version).toBe('0.3.0-rc.1');
    expect(() => repo.entry('alpine', '>= bar')).toThrow(expect.objectContaining({ code: 'HELM_VERSION_CONSTRAINT_INVALID' }));
    expect(() => repo.entry('alpine', '9.9.9')).toThrow(expect.objectContaining({ code: 'HELM_CHART_NOT_FOUND' }));
  });

  it('skips entries with a non-semver version, no name or null, with a warning, instead of crashing', () => {
    const repo = repoFrom('local-index-devel-and-invalid.yaml');
    expect(repo.warnings).toEqual([
      'skipping loading invalid entry for chart "nginx" "latest" from local-index-devel-and-invalid.yaml: validation: chart.metadata.version "latest" is invalid',
    ]);
    expect(repo.versions('nginx').map((v) => v.version)).toEqual(['0.3.0-rc.1', '0.2.0', '0.1.0']);
    expect(repo.entry('nginx').version).toBe('0.2.0');

    const empty = repoFrom('index-with-empty-entry.yaml');
    expect(empty.warnings).toHaveLength(4);
    expect(empty.warnings.join('\n')).toContain(
      '"grafana" "" from index-with-empty-entry.yaml: validation: chart.metadata.version is required',
    );
    expect(empty.warnings.join('\n')).toContain('"bar" "" from index-with-empty-entry.yaml: validation: chart.metadata.name is required');
    expect(() => empty.entry('grafana')).toThrow(expect.objectContaining({ code: 'HELM_CHART_NOT_FOUND' }));
    expect(empty.search()).toEqual([]);

    const onlyPrerelease = ChartRepository.fromIndex(
      stringify({ apiVersion: 'v1', entries: { beta: [{ name: 'beta', version: '1.0.0-rc.1', digest: 'x', urls: ['beta.tgz'] }] } }),
      { directory: tmpdir() },
    );
    expect(() => onlyPrerelease.entry('beta')).toThrow(expect.objectContaining({ code: 'HELM_NO_STABLE_VERSION' }));
    expect(onlyPrerelease.entry('beta', '>0.0.0-0').version).toBe('1.0.0-rc.1');
  });

  it('refuses what Helm refuses: duplicate keys, an empty index, no apiVersion', () => {
    expect(() => repoFrom('index-with-duplicates.yaml')).toThrow(expect.objectContaining({ code: 'HELM_REPOSITORY_INDEX_INVALID' }));
    expect(() => ChartRepository.fromIndex('', { directory: tmpdir() })).toThrow(
      expect.objectContaining({ code: 'HELM_REPOSITORY_INDEX_INVALID' }),
    );
    expect(() => ChartRepository.fromIndex('entries: {}\n', { directory: tmpdir() })).toThrow(/no API version specified/);
  });

  describe('archive urls: relative, absolute file://, absolute http:// from a real server', () => {
    let server: Server;
    let base: string;
    let dir: string;
    const requests: string[] = [];
    const digest = (file: string) =>
      createHash('sha256')
        .update(readFileSync(join(HELM, 'repository', file)))
        .digest('hex');

    beforeAll(async () => {
      server = createServer((request, response) => {
        requests.push(request.url ?? '');
        if (request.url === '/charts/frobnitz-1.2.3.tgz') {
          response.writeHead(200, { 'content-type': 'application/gzip' });
          response.end(readFileSync(join(HELM, 'repository/frobnitz-1.2.3.tgz')));
        } else if (request.url === '/slow.tgz') {
          // Never answers: the download must give up at its timeout.
        } else {
          response.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      dir = mkdtempSync(join(tmpdir(), 'opsgate-repo-'));
      mkdirSync(join(dir, 'archives'));
      copyFileSync(join(HELM, 'repository/sprocket-1.1.0.tgz'), join(dir, 'archives/sprocket-1.1.0.tgz'));
      const entry = (name: string, version: string, url: string, sha: string) => ({
        apiVersion: 'v2',
        name,
        version,
        digest: sha,
        urls: [url],
      });
      writeFileSync(
        join(dir, 'index.yaml'),
        stringify({
          apiVersion: 'v1',
          entries: {
            sprocket: [
              entry('sprocket', '1.1.0', 'archives/sprocket-1.1.0.tgz', digest('sprocket-1.1.0.tgz')),
              entry(
                'sprocket',
                '1.2.0',
                pathToFileURL(join(HELM, 'repository/sprocket-1.2.0.tgz')).href,
                `sha256:${digest('sprocket-1.2.0.tgz')}`,
              ),
            ],
            frobnitz: [
              entry('frobnitz', '1.2.3', `${base}/charts/frobnitz-1.2.3.tgz`, digest('frobnitz-1.2.3.tgz')),
              entry('frobnitz', '1.2.2', `${base}/charts/frobnitz-1.2.3.tgz`, digest('sprocket-1.1.0.tgz')),
              entry('frobnitz', '1.0.0', `${base}/missing.tgz`, digest('frobnitz-1.2.3.tgz')),
              entry('frobnitz', '0.9.0', `${base}/slow.tgz`, digest('frobnitz-1.2.3.tgz')),
              entry('frobnitz', '0.8.0', 'oci://registry.example.com/charts/frobnitz', digest('frobnitz-1.2.3.tgz')),
            ],
          },
        }),
      );
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    });

    it('resolves a relative url against the repository and uses an absolute file:// url as it is', async () => {
      const repo = await ChartRepository.open(dir, 'local');
      expect(repo.archiveUrl(repo.entry('sprocket', '1.1.0')).href).toBe(pathToFileURL(join(dir, 'archives/sprocket-1.1.0.tgz')).href);
      expect((await repo.load('sprocket', '1.1.0')).metadata.version).toBe('1.1.0');
      const newest = await repo.load('sprocket');
      expect(newest.metadata).toMatchObject({ name: 'sprocket', version: '1.2.0' });
      expect(repo.archivePath(repo.entry('sprocket'))).toBe(join(HELM, 'repository/sprocket-1.2.0.tgz'));
    });

    it('downloads an http url, checks its digest and keeps the verified file for the helm CLI', async () => {
      const cacheDir = join(dir, 'cache');
      const repo = await ChartRepository.open(dir, 'local', { cacheDir });
      const entry = repo.entry('frobnitz');
      expect(() => repo.archivePath(entry)).toThrow(expect.objectContaining({ code: 'HELM_CHART_DOWNLOAD_FAILED' }));
      const chart = await repo.load('frobnitz');
      expect(chart.metadata).toMatchObject({ name: 'frobnitz', version: '1.2.3' });
      expect(requests).toContain('/charts/frobnitz-1.2.3.tgz');
      expect(readFileSync(repo.archivePath(entry))).toEqual(readFileSync(join(HELM, 'repository/frobnitz-1.2.3.tgz')));

      await expect(repo.load('frobnitz', '1.2.2')).rejects.toMatchObject({
        code: 'HELM_CHART_INVALID',
        message: /does not match index.yaml/,
      });
      await expect(repo.load('frobnitz', '1.0.0')).rejects.toMatchObject({ code: 'HELM_CHART_DOWNLOAD_FAILED', message: /HTTP 404/ });
      await expect(repo.load('frobnitz', '0.8.0')).rejects.toMatchObject({ code: 'HELM_CHART_DOWNLOAD_FAILED', message: /oci: scheme/ });
      const impatient = await ChartRepository.open(dir, 'local', { downloadTimeoutMs: 300 });
      await expect(impatient.load('frobnitz', '0.9.0')).rejects.toMatchObject({
        code: 'HELM_CHART_DOWNLOAD_FAILED',
        message: /no answer within 300 ms/,
      });
    });
  });
});
