import { describe, expect, it } from 'vitest';
import { type Doc, docClaimProblems, pathProblems, quoteProblems, type Repository, repositoryDocs, theRepository } from './doc-claims.ts';

const repo: Repository = {
  exists: (path) => ['src/core', 'src/core/runtime/types.ts', 'docs/agents/access.md', 'src/web/src/app.tsx'].includes(path),
  read: (path) => (path === 'examples/x.ts' ? 'import a from "a";\nexport const x = 1;\nexport const y = 2;\n' : undefined),
  scripts: new Set(['test', 'eval']),
};
const doc = (text: string, path = 'docs/guide.md'): Doc => ({ path, text });

describe('doc claims', () => {
  it('a quoted block must be a verbatim part of the file it names', () => {
    expect(quoteProblems(doc('<!-- quote: examples/x.ts -->\n```ts\nexport const x = 1;\nexport const y = 2;\n```\n'), repo)).toEqual([]);
    expect(quoteProblems(doc('<!-- quote: examples/x.ts -->\n```ts\nexport const x = 3;\n```\n'), repo)).toEqual([
      'docs/guide.md: the block quoted from examples/x.ts no longer matches it; copy it again',
    ]);
    expect(quoteProblems(doc('<!-- quote: examples/gone.ts -->\n```ts\nx\n```\n'), repo)).toEqual([
      'docs/guide.md: quotes examples/gone.ts, which does not exist',
    ]);
  });

  it('paths in backticks and relative links must exist, unless the doc says the reader creates them', () => {
    expect(pathProblems(doc('See `src/core/runtime/types.ts`, [access](agents/access.md) and `src/core/`.'), repo)).toEqual([]);
    expect(pathProblems(doc('See `src/core/error-codes.ts` and [specs](../specs/access.md) and [x](agents/x.md).'), repo)).toEqual([
      'docs/guide.md: names src/core/error-codes.ts, which does not exist',
      'docs/guide.md: links ../specs/access.md, which does not exist',
      'docs/guide.md: links agents/x.md, which does not exist',
    ]);
    expect(pathProblems(doc('<!-- new-paths: src/agents/dns -->\nCreate `src/agents/dns/index.ts`.'), repo)).toEqual([]);
    expect(pathProblems(doc('`src/app.tsx` is the shell.', 'src/web/README.md'), repo)).toEqual([]);
  });

  it('npm run names a script of package.json (placeholders aside)', () => {
    expect(docClaimProblems([doc('`npm run eval`, `npm run bench:NAME`, `npm run lint`')], repo)).toEqual([
      'docs/guide.md: runs npm run lint, which package.json does not define',
    ]);
  });

  it('hold in every doc of the repository', () => {
    expect(docClaimProblems(repositoryDocs(), theRepository())).toEqual([]);
  });
});
