import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import { collectCrds, resolveSubcharts } from '../../src/agents/helm/charts/dependencies.ts';
import { chartFromFiles, checkInstallable, type LoadedChart, loadChartArchive } from '../../src/agents/helm/charts/load-chart.ts';
import { parseManifest, renderChart } from '../../src/agents/helm/charts/render-chart.ts';
import { mergeValues, subchartValues, type Values } from '../../src/agents/helm/values/merge-values.ts';
import { validateValues } from '../../src/agents/helm/values/validate-values.ts';
import { HELM_TESTDATA, loadTestChart, readChartFolder } from './support/helm-testcharts.ts';

/** Helm's `extractChartNames` after `processDependencyEnabled(c, values, "")`: every kept chart's path, sorted. */
function enabledChartNames(chart: LoadedChart, userValues: Values): string[] {
  const top = mergeValues(chart.defaults, userValues);
  const out: string[] = [];
  const walk = (current: LoadedChart, values: Values, path: string) => {
    out.push(path);
    for (const sub of resolveSubcharts(current, values, top.tags).enabled)
      walk(sub, subchartValues(sub, values), `${path}.${sub.metadata.name}`);
  };
  walk(chart, top, chart.metadata.name);
  return out.sort();
}

/** The table of Helm's TestDependencyEnabled (Go map literals turned into JSON). */
function dependencyEnabledCases(): Array<[string, Values, string[]]> {
  const source = readFileSync(join(HELM_TESTDATA, 'dependencies_test.go'), 'utf8');
  const start = source.indexOf('func TestDependencyEnabled(');
  const body = source.slice(start, source.indexOf('\n}\n', start));
  let table = body.slice(body.indexOf('}{{') + 2, body.indexOf('}}\n\n\tfor') + 1);
  table = table
    .replace(/\[\]string\{([^}]*)\}/g, '[$1]')
    .replace(/M\{/g, '{')
    .replace(/\{(\s*"[^"]*",)/g, '[$1')
    .replace(/,(\s*)\}(\s*)(,|$)/g, ']$3')
    .replace(/,(\s*[\]}])/g, '$1');
  return JSON.parse(`[${table}]`) as Array<[string, Values, string[]]>;
}

const golden = (file: string) => readFileSync(join(HELM_TESTDATA, 'output', file), 'utf8');

describe('subcharts as Helm loads and selects them', () => {
  it("loads packed charts/*.tgz subcharts, nested ones too, and skips charts/_ignore_me (Helm's frobnitz)", async () => {
    const frobnitz = await loadChartArchive(readFileSync(join(HELM_TESTDATA, 'repository/frobnitz-1.2.3.tgz')));
    // Helm's verifyChart: one template, two dependencies alpine 0.1.0 and mariner 4.3.2 (mariner is packed).
    expect(frobnitz.templates.map((t) => t.path)).toEqual(['templates/template.tpl']);
    expect(frobnitz.subcharts.map((s) => [s.metadata.name, s.metadata.version])).toEqual([
      ['alpine', '0.1.0'],
      ['mariner', '4.3.2'],
    ]);
    const alpine = frobnitz.subcharts[0]!;
    expect(alpine.subcharts.map((s) => s.metadata.name).sort()).toEqual(['mast1', 'mast2']);
  });

  it("keeps exactly the charts Helm's TestDependencyEnabled expects on its subpop chart (tags, conditions, aliases)", async () => {
    const subpop = await chartFromFiles(readChartFolder(join(HELM_TESTDATA, 'subpop'), 'subpop/'), 'subpop/');
    const cases = dependencyEnabledCases();
    expect(cases).toHaveLength(11);
    for (const [name, values, expected] of cases) expect(enabledChartNames(subpop, values), name).toEqual(expected);
  });

  it('enabled: false without a condition does not disable a subchart; a condition or a tag does', async () => {
    // chart-with-schema-and-subchart lists no dependencies: its subchart is always part of the release.
    const plain = await loadTestChart('chart-with-schema-and-subchart');
    const off = validateValues(plain, { lastname: 'doe', 'subchart-with-schema': { enabled: false } });
    expect(off.checked.map((c) => c.chart)).toContain('chart-without-schema/subchart-with-schema');
    expect(off.errors.map((e) => e.path)).toEqual(['/subchart-with-schema/age']);

    // Helm's `subchart` chart: condition subcharta.enabled, tags front-end and subcharta.
    const chart = await loadTestChart('subchart');
    const decide = (values: Values) => {
      const top = mergeValues(chart.defaults, values);
      return resolveSubcharts(chart, top, top.tags).decisions.map((d) => `${d.name}=${d.enabled}`);
    };
    expect(decide({})).toEqual(['subcharta=true', 'subchartb=true']);
    expect(decide({ subcharta: { enabled: false } })).toEqual(['subcharta=false', 'subchartb=true']);
    expect(decide({ tags: { 'front-end': false } })).toEqual(['subcharta=false', 'subchartb=false']);
    // The condition wins over the tags when it holds a boolean; a non-boolean is ignored.
    expect(decide({ tags: { 'front-end': false }, subcharta: { enabled: true } })).toEqual(['subcharta=true', 'subchartb=false']);
    expect(decide({ subcharta: { enabled: 'no' } })).toEqual(['subcharta=true', 'subchartb=true']);
  });

  it('the demo shop turns its cache off through condition: cache.enabled, in the manifest and the schema check', async () => {
    const shop = await (await ChartRepository.open()).load('shop');
    const render = (values: Values) =>
      parseManifest(renderChart(shop, mergeValues(shop.defaults, values), { releaseName: 'r', namespace: 'n', revision: 1 }), 'n').map(
        (r) => r.key,
      );
    expect(render({})).toEqual(['Deployment/r-shop', 'Service/r-cache', 'StatefulSet/r-cache']);
    expect(render({ cache: { enabled: false } })).toEqual(['Deployment/r-shop']);
    expect(validateValues(shop, { cache: { enabled: false, maxMemoryMb: 8 } }).valid).toBe(true);
    expect(validateValues(shop, { cache: { maxMemoryMb: 8 } }).valid).toBe(false);
  });

  it('exposes crds/ (not templated) and lists the CRDs Helm would install for the enabled charts', async () => {
    const chart = await loadTestChart('subchart');
    expect(chart.crds.map((c) => c.path)).toEqual(['crds/crdA.yaml']);
    expect(chart.crds[0]!.content).toBe(readFileSync(join(HELM_TESTDATA, 'testcharts/subchart/crds/crdA.yaml'), 'utf8'));
    expect(chart.templates.some((t) => t.path.startsWith('crds/'))).toBe(false);

    const onlyCrds = await loadTestChart('chart-with-only-crds');
    expect(onlyCrds.templates).toEqual([]);
    expect(collectCrds(onlyCrds, onlyCrds.defaults).map((c) => c.path)).toEqual(['crd-test/crds/test-crd.yaml']);

    // subpop's subchart1 has crds/crdA.yaml: installed only while subchart1 is enabled.
    const subpop = await chartFromFiles(readChartFolder(join(HELM_TESTDATA, 'subpop'), 'subpop/'), 'subpop/');
    expect(collectCrds(subpop, subpop.defaults).map((c) => c.path)).toEqual(['parentchart/charts/subchart1/crds/crdA.yaml']);
    expect(collectCrds(subpop, mergeValues(subpop.defaults, { subchart1: { enabled: false } }))).toEqual([]);
  });

  it("refuses a bad chart type with Helm's message, and a library chart at install", async () => {
    const typeError = /validation: chart.metadata.type must be application or library/;
    expect(golden('install-lib-chart.txt')).toMatch(typeError);
    expect(golden('install-chart-bad-type.txt')).toMatch(typeError);
    // Helm's lib-chart declares `type: Library`, which Helm itself refuses (case matters).
    await expect(loadTestChart('lib-chart')).rejects.toMatchObject({ code: 'HELM_CHART_INVALID', message: typeError });
    await expect(loadTestChart('chart-bad-type')).rejects.toMatchObject({ code: 'HELM_CHART_INVALID', message: typeError });

    // Derived: the same lib-chart with a valid `type: library`.
    const files = readChartFolder(join(HELM_TESTDATA, 'testcharts/lib-chart'), 'lib-chart/');
    files.set(
      'lib-chart/Chart.yaml',
      Buffer.from(files.get('lib-chart/Chart.yaml')!.toString('utf8').replace('type: Library', 'type: library')),
    );
    const library = await chartFromFiles(files, 'lib-chart/');
    expect(library.metadata.type).toBe('library');
    expect(() => checkInstallable(library)).toThrow(
      expect.objectContaining({
        code: 'HELM_CHART_NOT_INSTALLABLE',
        message: expect.stringMatching(/^library charts are not installable/),
      }),
    );
    expect(() => renderChart(library, library.defaults, { releaseName: 'r', namespace: 'n', revision: 1 })).toThrow(
      /library charts are not installable/,
    );
  });

  it('a packed library subchart renders no manifest and its partials stay available (chart-with-template-lib-archive-dep)', async () => {
    const files = readChartFolder(join(HELM_TESTDATA, 'testcharts/chart-with-template-lib-archive-dep'), 'app/');
    const helmChart = await chartFromFiles(files, 'app/');
    const common = helmChart.subcharts.find((s) => s.metadata.name === 'common')!;
    expect(common.metadata.type).toBe('library');
    expect(common.templates.length).toBe(17);
    // 16 partials and one templates/configmap.yaml, which Helm does not render in a library chart.
    expect(common.templates.filter((t) => !t.path.split('/').pop()!.startsWith('_')).map((t) => t.path)).toEqual([
      'templates/configmap.yaml',
    ]);

    // Derived: the parent's own templates use `template`/`include`, beyond opsgate's renderer, so
    // they are replaced by one it renders; the library subchart and values stay Helm's.
    for (const path of [...files.keys()]) if (path.startsWith('app/templates/')) files.delete(path);
    files.set(
      'app/templates/configmap.yaml',
      Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  chart: {{ .Chart.Name }}\n'),
    );
    const chart = await chartFromFiles(files, 'app/');
    const manifest = renderChart(chart, chart.defaults, { releaseName: 'r', namespace: 'n', revision: 1 });
    const sources = parseManifest(manifest).map((r) => r.source);
    expect(sources).toEqual(['chart-with-template-lib-archive-dep/templates/configmap.yaml']);
    // Helm's own output for this chart has no source under charts/common either.
    expect(golden('template-chart-with-template-lib-archive-dep.txt')).not.toMatch(/# Source: .*charts\/common/);
  });
});
