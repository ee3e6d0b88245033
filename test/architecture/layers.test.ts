import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  )) {
    const spec = match[1] ?? match[2]!;
    found.push(resolve(dirname(file), spec));
  }
  return found;
}

const files = sourceFiles(src).filter((f) => !f.endsWith('.test.ts') && !f.includes(`${join('src', 'web')}`));
const layerOf = (file: string): string => relative(src, file).split('/')[0]!;

describe('architecture', () => {
  it('src/core imports nothing from agents, server, web, mcp, cli or app', () => {
    const offenders = files
      .filter((f) => layerOf(f) === 'core')
      .flatMap((f) =>
        relativeImports(f)
          .filter((target) => ['agents', 'server', 'web', 'mcp', 'cli', 'app'].includes(layerOf(target)))
          .map((t) => `${relative(root, f)} → ${relative(root, t)}`),
      );
    expect(offenders).toEqual([]);
  });

  it('an agent depends only on src/core (and its own folder), never on another agent or an interface', () => {
    const offenders = files
      .filter((f) => layerOf(f) === 'agents' && relative(join(src, 'agents'), f).includes('/'))
      .flatMap((f) => {
        const agent = relative(join(src, 'agents'), f).split('/')[0];
        return relativeImports(f)
          .filter((target) => {
            const layer = layerOf(target);
            if (layer === 'core' || layer === 'testing') return false;
            // MCP-server factories parse their own CLI options with the CLI's shared, agent-free helpers.
            if (layer === 'cli' && ['cli/command.ts', 'cli/parse-args.ts'].includes(relative(src, target))) return false;
            if (layer === 'agents') return relative(join(src, 'agents'), target).split('/')[0] !== agent;
            return true;
          })
          .map((t) => `${relative(root, f)} → ${relative(root, t)}`);
      });
    expect(offenders).toEqual([]);
  });

  it('has no import cycles inside src/core', () => {
    const core = files.filter((f) => layerOf(f) === 'core');
    const graph = new Map(core.map((f) => [f, relativeImports(f).filter((t) => layerOf(t) === 'core')]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((p) => relative(src, p)).join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of core) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
