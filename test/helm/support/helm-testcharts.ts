import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartFromFiles, type LoadedChart } from '../../../src/agents/helm/charts/load-chart.ts';

/** The folder of Helm's files copied for these tests (origins in `fixtures/SOURCES.md`). */
export const HELM_TESTDATA = new URL('../fixtures/helm-testdata/', import.meta.url).pathname;

/** Every file under `dir`, keyed `<prefix><relative path>`, the way a chart archive lists them. */
export function readChartFolder(dir: string, prefix: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else files.set(`${prefix}${path}`, readFileSync(join(dir, path)));
    }
  };
  walk('');
  return files;
}

/** Loads one of Helm's `testcharts/` folders as opsgate loads a chart archive. */
export function loadTestChart(name: string): Promise<LoadedChart> {
  return chartFromFiles(readChartFolder(join(HELM_TESTDATA, 'testcharts', name), `${name}/`), `${name}/`);
}
