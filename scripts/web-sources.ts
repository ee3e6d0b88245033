// Prints the files outside src/web that the web UI's bundle is built from: everything src/web/src
// imports (type-only imports aside), followed import by import. scripts/build-web.sh rebuilds when one of them changed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const IMPORT =
  /(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|^import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  // Type-only imports are erased from the bundle: a change there changes nothing the browser runs.
  return [...text.matchAll(IMPORT)].flatMap((match) => {
    if (/^(?:import|export) type\b/.test(match[0])) return [];
    const target = resolve(dirname(file), (match[1] ?? match[2] ?? match[3])!);
    const found = [target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find(
      (path) => existsSync(path) && statSync(path).isFile(),
    );
    return found ? [found] : [];
  });
}

/** The files outside `webDir` that the sources in `webDir/src` import, directly or not, relative to the root, sorted. */
export function webBundleSourcesOutside(webDir = join(root, 'src/web')): string[] {
  const seen = new Set<string>();
  const pending = filesUnder(join(webDir, 'src'));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return [...seen]
    .filter((file) => !file.startsWith(`${webDir}/`))
    .map((file) => relative(root, file))
    .sort();
}

if (import.meta.main) console.log(webBundleSourcesOutside().join('\n'));
