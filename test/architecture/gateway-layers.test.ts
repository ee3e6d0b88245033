import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '..', '..', 'src');

it('src/gateway depends only on src/core and src/mcp (the gateway knows no agent, no server, no CLI)', () => {
  const dir = join(src, 'gateway');
  const offenders = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const file = join(dir, name);
      return (
        [...readFileSync(file, 'utf8').matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)]
          .map((match) => relative(src, resolve(dirname(file), match[1]!)).split('/')[0]!)
          // A unit test beside a gateway file may use the shared test doubles (src/testing: stores, clock).
          .filter(
            (layer) =>
              !['core', 'mcp', 'gateway'].includes(layer) && !layer.endsWith('.ts') && !(layer === 'testing' && name.endsWith('.test.ts')),
          )
          .map((layer) => `${name} → ${layer}`)
      );
    });
  expect(offenders).toEqual([]);
});
