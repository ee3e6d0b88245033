import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root and its `src`, for the architecture tests. */
export const root = resolve(import.meta.dirname, '../..');
export const src = join(root, 'src');

/** Every TypeScript file under `dir` (tests included), skipping dependencies and build output. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|^import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/**
 * The files a source file imports by relative path (static, dynamic and side-effect imports;
 * `import type` too, since a cycle of types is still two modules that cannot be read apart).
 */
export function relativeImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), (match[1] ?? match[2] ?? match[3])!);
    found.push([target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find((path) => existsSync(path)) ?? target);
  }
  return found;
}

/** The first folder under `src` (`core`, `agents`, `cli`, …). */
export const layerOf = (file: string): string => relative(src, file).split('/')[0]!;

/** The layers that face people or other programs; agents never import them. */
export const INTERFACES = ['server', 'web', 'mcp', 'cli', 'gateway', 'app'] as const;

/**
 * Every import cycle in `graph`, one line per strongly connected component (Tarjan's algorithm),
 * so a cycle is reported once however many files take part in it.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = graph.get(file)?.includes(file) ?? false;
    if (component.length > 1 || selfImport)
      cycles.push(
        component
          .map((path) => relative(root, path))
          .sort()
          .join(' ↔ '),
      );
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles.sort();
}
