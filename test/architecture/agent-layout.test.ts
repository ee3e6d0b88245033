import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeImports, root, sourceFiles, src } from './source-graph.ts';

/**
 * One layout for every agent (CONTRIBUTING.md, "An agent's folder"), so a newcomer finds the
 * prompt, the offline rules, the risk scoring, the tools and the errors of any agent in the same
 * place and a fifth agent has a template (docs/agents/new-agent.md).
 */
const REQUIRED_FILES = ['index.ts', 'README.md', 'prompt.ts', 'intents.ts', 'risk.ts', 'errors.ts'] as const;
const REQUIRED_FOLDERS = ['tools'] as const;
/** A README longer than this is not one screen: the details belong in docs/agents/<name>.md or a folder's own README. */
const README_MAX_LINES = 40;

/** What is wrong with the layout of the agent folder `dir` (empty when it follows the rule). */
function layoutProblems(dir: string, name = relative(join(src, 'agents'), dir)): string[] {
  const problems: string[] = [];
  const entries = readdirSync(dir);
  const isFolder = (entry: string) => statSync(join(dir, entry)).isDirectory();
  for (const file of REQUIRED_FILES) if (!entries.includes(file) || isFolder(file)) problems.push(`${name}: no ${file}`);
  for (const folder of REQUIRED_FOLDERS) if (!entries.includes(folder) || !isFolder(folder)) problems.push(`${name}: no ${folder}/ folder`);
  const requiredBases = REQUIRED_FILES.filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -'.ts'.length));
  for (const entry of entries) {
    if (isFolder(entry) || (REQUIRED_FILES as readonly string[]).includes(entry)) continue;
    // A test of a top-level file sits beside it: `risk.test.ts`, `intents.errors.test.ts`.
    if (entry.endsWith('.test.ts') && requiredBases.includes(entry.split('.')[0]!)) continue;
    problems.push(`${name}: ${entry} at the top; only ${REQUIRED_FILES.join(', ')} (and their tests) live there, the rest in a folder`);
  }
  const code = sourceFiles(dir).filter((f) => !f.endsWith('.test.ts'));
  for (const file of code) {
    const tools = readFileSync(file, 'utf8').match(/\bdefineTool\(/g)?.length ?? 0;
    const inTools = relative(dir, file).startsWith('tools/');
    if (tools > 0 && !inTools) problems.push(`${name}: ${relative(dir, file)} defines a tool outside tools/`);
    if (tools > 1) problems.push(`${name}: ${relative(dir, file)} defines ${tools} tools; one file per tool`);
  }
  if (entries.includes('index.ts') && !/\bdefineAgent\(/.test(readFileSync(join(dir, 'index.ts'), 'utf8')))
    problems.push(`${name}: index.ts does not call defineAgent`);
  if (entries.includes('README.md')) {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    if (readme.trimEnd().split('\n').length > README_MAX_LINES)
      problems.push(`${name}: README.md is longer than ${README_MAX_LINES} lines`);
    if (!readme.includes(`docs/agents/${name}.md`)) problems.push(`${name}: README.md does not link docs/agents/${name}.md`);
  }
  return problems;
}

const agentsDir = join(src, 'agents');
const agentFolders = readdirSync(agentsDir)
  .map((entry) => join(agentsDir, entry))
  .filter((path) => statSync(path).isDirectory());

describe('one agent layout', () => {
  it('every agent folder is an agent registered in src/agents/index.ts', () => {
    const registry = readFileSync(join(agentsDir, 'index.ts'), 'utf8');
    const unregistered = agentFolders.map((f) => relative(agentsDir, f)).filter((name) => !registry.includes(`'./${name}/index.ts'`));
    expect(agentFolders.length).toBeGreaterThanOrEqual(4);
    expect(unregistered).toEqual([]);
  });

  it('reports an agent that drifts: a missing part, a stray top-level file, two tools in one file, a tool outside tools/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-layout-'));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      };
      write('index.ts', 'export const fifth = defineAgent({});\n');
      write('README.md', '# fifth\n\nSee docs/agents/fifth.md.\n');
      for (const file of ['prompt.ts', 'intents.ts', 'errors.ts', 'intents.test.ts']) write(file, '\n');
      write('tools/one.ts', 'defineTool({});\n');
      expect(layoutProblems(dir, 'fifth')).toEqual(['fifth: no risk.ts']);
      write('risk.ts', '\n');
      write('helpers.ts', 'defineTool({});\n');
      write('tools/two.ts', 'defineTool({});\ndefineTool({});\n');
      expect(layoutProblems(dir, 'fifth')).toEqual([
        'fifth: helpers.ts at the top; only index.ts, README.md, prompt.ts, intents.ts, risk.ts, errors.ts (and their tests) live there, the rest in a folder',
        'fifth: helpers.ts defines a tool outside tools/',
        'fifth: tools/two.ts defines 2 tools; one file per tool',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(agentFolders.map((f) => [relative(agentsDir, f), f]))('%s follows it', (_name, dir) => {
    expect(layoutProblems(dir)).toEqual([]);
  });

  const examplesDir = join(root, 'examples/agents');
  const exampleFolders = readdirSync(examplesDir).map((entry) => join(examplesDir, entry));
  it.each(exampleFolders.map((f) => [relative(examplesDir, f), f]))(
    'the example agent %s follows it and imports only src/core and its own folder, so it can move to src/agents',
    (name, dir) => {
      expect(layoutProblems(dir, name)).toEqual([]);
      const outside = sourceFiles(dir)
        .filter((file) => !file.endsWith('.test.ts'))
        .flatMap((file) => relativeImports(file).map((target) => relative(root, target)))
        .filter((target) => !target.startsWith('src/core/') && !target.startsWith(relative(root, dir)));
      expect(outside).toEqual([]);
    },
  );
});
