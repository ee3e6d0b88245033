import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERFACES, importCycles, layerOf, relativeImports, root, sourceFiles, src } from './source-graph.ts';

const allFiles = sourceFiles(src);
// The web UI's files (src/web) are bundled for the browser and checked by the cycle rule only.
const files = allFiles.filter((f) => !f.endsWith('.test.ts') && layerOf(f) !== 'web');

/** The agent a file belongs to (`src/agents/<name>/…`), or undefined for `src/agents/index.ts`. */
const agentOf = (file: string): string | undefined => {
  const parts = relative(join(src, 'agents'), file).split('/');
  return parts.length > 1 ? parts[0] : undefined;
};

describe('architecture', () => {
  it('src/core imports nothing from agents, server, web, mcp, cli, gateway or app', () => {
    const offenders = files
      .filter((f) => layerOf(f) === 'core')
      .flatMap((f) =>
        relativeImports(f)
          .filter((target) => ['agents', ...INTERFACES].includes(layerOf(target)))
          .map((t) => `${relative(root, f)} → ${relative(root, t)}`),
      );
    expect(offenders).toEqual([]);
  });

  it('an agent depends only on src/core (and its own folder), never on another agent or an interface', () => {
    // Tests beside an agent's files obey the same rule: one that needs the CLI or the server
    // drives several layers and lives under test/ (see CONTRIBUTING.md, "Where a test goes").
    const offenders = allFiles
      .filter((f) => layerOf(f) === 'agents' && agentOf(f) !== undefined)
      .flatMap((f) =>
        relativeImports(f)
          .filter((target) => {
            const layer = layerOf(target);
            if (layer === 'core' || layer === 'testing') return false;
            if (layer === 'agents') return agentOf(target) !== agentOf(f);
            return true;
          })
          .map((t) => `${relative(root, f)} → ${relative(root, t)}`),
      );
    expect(offenders).toEqual([]);
  });

  it('has no import cycles anywhere in src', () => {
    const graph = new Map(allFiles.map((f) => [f, relativeImports(f)]));
    expect(importCycles(graph)).toEqual([]);
  });

  it('the cycle finder sees a cycle through three files and a file importing itself, and nothing in a chain', () => {
    const [a, b, c, d] = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((name) => join(src, name));
    expect(
      importCycles(
        new Map([
          [a!, [b!]],
          [b!, [c!]],
          [c!, [a!]],
          [d!, [d!, a!]],
        ]),
      ),
    ).toEqual(['src/a.ts ↔ src/b.ts ↔ src/c.ts', 'src/d.ts']);
    expect(
      importCycles(
        new Map([
          [a!, [b!]],
          [b!, [c!]],
          [c!, []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads static, dynamic, side-effect and type imports', () => {
    const file = join(src, 'agents', 'x', 'index.ts');
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../../core/b.ts';",
      "import './c.ts';",
      "export * from './d.ts';",
      "const e = await import('../../cli/e.ts');",
    ].join('\n');
    expect(relativeImports(file, text).map((t) => relative(src, t))).toEqual([
      'agents/x/a.ts',
      'core/b.ts',
      'agents/x/c.ts',
      'agents/x/d.ts',
      'cli/e.ts',
    ]);
  });

  it('every module names what it re-exports: no export * (adding a name to a boundary is a decision, not a side effect)', () => {
    const starExports = allFiles
      .filter((file) => /^export (?:type )?\* from /m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(starExports).toEqual([]);
  });
});
