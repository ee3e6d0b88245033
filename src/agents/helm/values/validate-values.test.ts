import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRepository } from '../charts/build-repo.ts';
import { ChartRepository, DEMO_REPOSITORY_DIR } from '../charts/chart-repository.ts';
import { mergeValues, parseSetAssignments } from './merge-values.ts';
import { requiredFields, schemaDraft, validateValues } from './validate-values.ts';

describe('values: merge, schema validation by declared draft', () => {
  it('merges deeply and a null user value deletes the key (Helm coalescing)', () => {
    expect(mergeValues({ a: 1, image: { repository: 'nginx', tag: '1' }, drop: { x: 1 } }, { image: { tag: '2' }, drop: null })).toEqual({
      a: 1,
      image: { repository: 'nginx', tag: '2' },
    });
    expect(parseSetAssignments(['image.tag=1.2', 'replicaCount=3', 'debug=true', 'x=null'])).toEqual({
      image: { tag: 1.2 },
      replicaCount: 3,
      debug: true,
      x: null,
    }); // like helm --set: numbers are typed
  });

  it('N3: on gojsonschema (Helm 3.13-3.18.4) a schema declaring 2019-09 is read in hybrid mode, not refused as "not draft-07"', async () => {
    const repo = await ChartRepository.open();
    const shop = await repo.load('shop', '0.3.0');
    expect((shop.schema as { $schema: string }).$schema).toContain('2019-09');
    const valid = validateValues(shop, {}, 'gojsonschema');
    expect(valid.errors).toEqual([]);
    expect(valid.valid).toBe(true);
    const invalid = validateValues(shop, { currency: 'euro' }, 'gojsonschema');
    expect(invalid.errors.map((e) => `${e.path} ${e.message}`)).toEqual(['/currency must match pattern "^[A-Z]{3}$"']);
  });

  it('validates the merged values: deleting a required default with null is an error with its path', async () => {
    const repo = await ChartRepository.open();
    const webapp = await repo.load('webapp', '1.0.0');
    expect(validateValues(webapp, { replicaCount: 2 }).valid).toBe(true);
    const result = validateValues(webapp, { image: { repository: null }, replicaCount: 0, service: { type: 'Weird' } });
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => `${e.path} ${e.message}`).sort()).toEqual(
      [
        '/image/repository missing required field "repository"',
        '/replicaCount must be >= 1',
        '/service/type must be equal to one of the allowed values',
      ].sort(),
    );
    expect(result.checked).toEqual([{ chart: 'webapp', draft: 'draft-07' }]);
  });

  it('checks every subchart with the draft it declares (2019-09 parent, 2020-12 subchart)', async () => {
    const repo = await ChartRepository.open();
    const shop = await repo.load('shop');
    const result = validateValues(shop, { currency: 'eu', cache: { maxMemoryMb: 8 } });
    expect(result.checked).toEqual([
      { chart: 'shop', draft: '2019-09' },
      { chart: 'shop/cache', draft: '2020-12' },
    ]);
    expect(result.errors.map((e) => [e.chart, e.path])).toEqual([
      ['shop', '/currency'],
      ['shop/cache', '/cache/maxMemoryMb'],
    ]);
    // shop lists cache with `condition: cache.enabled`, so this turns the subchart (and its schema) off.
    expect(validateValues(shop, { cache: { enabled: false, maxMemoryMb: 8 } }).valid).toBe(true);
    // Helm ≥ 3.18.5 (santhosh-tekuri/jsonschema v6): no $schema means 2020-12, and draft-04 is accepted.
    expect(schemaDraft({})).toBe('2020-12');
    expect(schemaDraft({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBe('draft-04');
    expect(() => schemaDraft({ $schema: 'http://json-schema.org/draft-03/schema#' })).toThrow(/unsupported/);
    expect(requiredFields(shop).map((f) => f.path)).toEqual(['image.repository', 'image.tag', 'currency', 'cache.maxMemoryMb']);
  });

  it('the committed demo repository is exactly what build-repo.ts produces (reproducible archives)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'opsgate-charts-'));
    try {
      const files = await buildRepository(out);
      expect(files).toHaveLength(6);
      for (const file of [...files, 'index.yaml'])
        expect(readFileSync(join(out, file))).toEqual(readFileSync(join(DEMO_REPOSITORY_DIR, file)));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
