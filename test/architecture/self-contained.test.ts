import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/**
 * The workspace folder the specs and the design page once lived in, beside the repository. A clone
 * has no such folder, so a link into it is dead: docs/agents and docs/architecture.md replace it.
 * Spelled as a pattern so this file does not name it itself. The specs that lived there (`specs/…md`)
 * are not in the repository either.
 */
const OUTSIDE_FOLDER = /(?:\.\.|\/work)\/shared\b|(?:^|[\s(`'"])specs\/[\w-]+\.md/;

/** The root folder of the machine the project is built on (worktrees, mirrors, tools). Spelled as a pattern so this file does not name it. */
const MACHINE_FOLDER = new RegExp(`(?:^|[\\s'"\`(=])/${'work'}/`);
/** The work diary names the worktrees it was written in; the eval results record real `ps` output of a run. */
const MACHINE_PATHS_ALLOWED = ['notes/', 'eval/results/'];

const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.tools', 'dist', 'data', 'test-results', 'coverage']);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(root, path)];
  });
}

/** The repository's files: tracked and new ones (git), or every file outside the ignored folders when git is absent. */
function repositoryFiles(): string[] {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return listed.split('\0').filter((path) => path.length > 0);
  } catch {
    return walk(root);
  }
}

describe('the repository is self-contained', () => {
  it('no file names the shared workspace folder outside the repository', () => {
    const offenders: string[] = [];
    for (const path of repositoryFiles()) {
      let text: string;
      try {
        text = readFileSync(join(root, path), 'utf8');
      } catch {
        continue; // deleted in the work tree but still tracked
      }
      if (text.includes('\0')) continue; // binary
      text.split('\n').forEach((line, index) => {
        if (OUTSIDE_FOLDER.test(line)) offenders.push(`${path}:${index + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders, 'link docs/agents/*.md or docs/architecture.md instead').toEqual([]);
  });

  it('no file names a folder of the machine it was written on (the work diary and recorded command output aside)', () => {
    const offenders: string[] = [];
    for (const path of repositoryFiles()) {
      if (MACHINE_PATHS_ALLOWED.some((prefix) => path.startsWith(prefix))) continue;
      let text: string;
      try {
        text = readFileSync(join(root, path), 'utf8');
      } catch {
        continue;
      }
      if (text.includes('\0')) continue;
      text.split('\n').forEach((line, index) => {
        if (MACHINE_FOLDER.test(line)) offenders.push(`${path}:${index + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders, 'take the path as an argument or name it relative to the repository').toEqual([]);
  });
});
