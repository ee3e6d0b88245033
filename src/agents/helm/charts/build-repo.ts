/**
 * Packages the demo charts of `sources/<name>-<version>/` into `repo/<name>-<version>.tgz` and
 * writes `repo/index.yaml`, the way `helm package` + `helm repo index` would. Archives are
 * reproducible (fixed mtime, portable headers), so the committed repository can be checked.
 * Run: `node src/agents/helm/charts/build-repo.ts [outDir]`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { create } from 'tar';
import { parse as parseYaml, stringify } from 'yaml';

export const SOURCES_DIR = new URL('./sources/', import.meta.url).pathname;
const FIXED_TIME = new Date('2025-01-01T00:00:00Z');

export async function buildRepository(outDir: string, sourcesDir: string = SOURCES_DIR): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const entries: Record<string, Array<Record<string, unknown>>> = {};
  const written: string[] = [];
  for (const folder of readdirSync(sourcesDir).sort()) {
    const meta = parseYaml(readFileSync(join(sourcesDir, folder, 'Chart.yaml'), 'utf8')) as Record<string, unknown> & {
      name: string;
      version: string;
    };
    const file = `${meta.name}-${meta.version}.tgz`;
    const target = join(outDir, file);
    await create(
      { gzip: { level: 9 }, file: target, cwd: join(sourcesDir, folder), portable: true, mtime: FIXED_TIME, prefix: meta.name },
      listFiles(join(sourcesDir, folder)),
    );
    const digest = createHash('sha256').update(readFileSync(target)).digest('hex');
    entries[meta.name] ??= [];
    entries[meta.name]!.push({ ...meta, created: FIXED_TIME.toISOString(), digest, urls: [file] });
    written.push(file);
  }
  writeFileSync(join(outDir, 'index.yaml'), stringify({ apiVersion: 'v1', entries, generated: FIXED_TIME.toISOString() }));
  return written;
}

function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? new URL('./repo/', import.meta.url).pathname);
  const files = await buildRepository(out);
  console.log(`wrote ${files.length} charts and index.yaml to ${out}`);
}
