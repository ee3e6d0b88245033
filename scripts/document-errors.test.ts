import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderErrorsDoc } from './document-errors.ts';

it('docs/errors.md documents every error code (regenerate with node scripts/document-errors.ts)', async () => {
  const expected = await renderErrorsDoc();
  const current = readFileSync(join(import.meta.dirname, '../docs/errors.md'), 'utf8');
  const documented = new Set([...current.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  const missing = [...expected.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]).filter((code) => !documented.has(code));
  expect(missing).toEqual([]);
});
