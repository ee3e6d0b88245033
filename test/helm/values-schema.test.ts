import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HelmCli } from '../../src/agents/helm/backends/cli/helm-cli.ts';
import { buildRepository, SOURCES_DIR } from '../../src/agents/helm/charts/build-repo.ts';
import { ChartRepository } from '../../src/agents/helm/charts/chart-repository.ts';
import type { LoadedChart, SchemaDocument } from '../../src/agents/helm/charts/load-chart.ts';
import { HelmService } from '../../src/agents/helm/service/helm-service.ts';
import { schemaDraft, type ValuesValidation, validateValues } from '../../src/agents/helm/values/validate-values.ts';
import { inProcessFakeHelm } from './fake-helm/install-fakes.ts';
import { HELM_TESTDATA, loadTestChart } from './support/helm-testcharts.ts';

// Why the fake `helm`: it compares opsgate's schema failures with Helm's own golden texts; the schema check
// on the real Helm 3.17 (N3) runs in workflow-cases.ts.

const readText = (file: string) => readFileSync(join(HELM_TESTDATA, file), 'utf8');
const readJson = (file: string) => JSON.parse(readText(file)) as SchemaDocument;
const readValues = (file: string) => parseYaml(readText(file)) as Record<string, unknown>;

/** A chart holding only a schema: what Helm's ValidateAgainstSingleSchema checks. */
function schemaOnly(schema: SchemaDocument, name = 'chrt'): LoadedChart {
  return { metadata: { name, version: '0.1.0' }, valuesYaml: '', defaults: {}, schema, templates: [], crds: [], subcharts: [] };
}

/**
 * The failures of a Helm install golden (`values don't meet the specifications …`), as
 * `chart path` pairs in opsgate's form: a missing property is reported at its own path.
 */
function goldenFailures(file: string): string[] {
  const out: string[] = [];
  let chart = '';
  for (const line of readText(`output/${file}`).split('\n')) {
    const section = /^([\w.-]+):$/.exec(line);
    if (section) chart = section[1]!;
    const failure = /^- at '([^']*)': (?:missing property '([^']+)'|(\w+):)/.exec(line);
    if (failure) out.push(`${chart} ${failure[2] ? `${failure[1]}/${failure[2]}` : failure[1]}`);
  }
  return out;
}

/** The same pairs from opsgate's validation, paths made relative to each chart's own values. */
function failures(result: ValuesValidation): string[] {
  return result.errors.map((e) => {
    const chart = e.chart.split('/').pop()!;
    const sub = e.chart.split('/').slice(1);
    const prefix = sub.length ? `/${sub.join('/')}` : '';
    return `${chart} ${e.path.slice(prefix.length)}`;
  });
}

describe("values.schema.json as Helm ≥ 3.18.5 validates it (santhosh-tekuri/jsonschema v6, Helm's options)", () => {
  it("Helm's testcharts: chart-with-schema passes; the negative ones fail exactly where Helm's goldens say", async () => {
    expect(validateValues(await loadTestChart('chart-with-schema'), {}).errors).toEqual([]);

    const negative = validateValues(await loadTestChart('chart-with-schema-negative'), {});
    expect(failures(negative).sort()).toEqual(goldenFailures('schema-negative.txt').sort());

    // `-f extra-values.yaml` (age -5, employmentInfo null deletes the default) gives the same golden.
    const withExtra = validateValues(
      await loadTestChart('chart-with-schema'),
      readValues('testcharts/chart-with-schema/extra-values.yaml'),
    );
    expect(failures(withExtra).sort()).toEqual(goldenFailures('schema-negative.txt').sort());
    expect(failures(validateValues(await loadTestChart('chart-with-schema'), { age: -5 }))).toEqual(
      goldenFailures('schema-negative-cli.txt'),
    );

    const parent = await loadTestChart('chart-with-schema-and-subchart');
    expect(failures(validateValues(parent, {})).sort()).toEqual(goldenFailures('subchart-schema-negative.txt').sort());
    expect(failures(validateValues(parent, { lastname: 'doe', 'subchart-with-schema': { age: -25 } }))).toEqual(
      goldenFailures('subchart-schema-cli-negative.txt'),
    );
    expect(validateValues(parent, { lastname: 'doe', 'subchart-with-schema': { age: 25 } }).valid).toBe(true);
  });

  it('a schema without $schema is 2020-12 (Helm test constant subchartSchema2020, its $schema removed)', () => {
    const declared = schemaOnly(readJson('subchart-schema-2020.schema.json'));
    const undeclared = schemaOnly(readJson('subchart-schema-2020-no-dialect.schema.json'));
    expect(schemaDraft(undeclared.schema)).toBe('2020-12');
    for (const chart of [declared, undeclared]) {
      // TestValidateAgainstSchema2020 and its negative case.
      expect(validateValues(chart, { data: ['hello', 12] }).valid).toBe(true);
      expect(validateValues(chart, { data: [12] }).errors.map((e) => [e.path, e.keyword])).toContainEqual(['/data', 'contains']);
    }
    // prefixItems (added to the derived copy) exists only in 2020-12: under draft-07 (the old
    // assumption) or 2019-09 it is an unknown keyword and [1, "x"] passed.
    const result = validateValues(undeclared, { data: [1, 'x'] });
    expect(result.checked).toEqual([{ chart: 'chrt', draft: '2020-12' }]);
    expect(result.errors.map((e) => [e.path, e.keyword])).toEqual([['/data/0', 'type']]);
    expect(
      validateValues(schemaOnly({ ...(undeclared.schema as object), $schema: 'http://json-schema.org/draft-07/schema#' }), {
        data: [1, 'x'],
      }).valid,
    ).toBe(true);
  });

  it('accepts draft-04 with its own semantics (boolean exclusiveMinimum) and draft-06', () => {
    const values = readValues('test-values.yaml');
    const draft04 = schemaOnly(readJson('test-values-draft-04.schema.json'));
    expect(validateValues(draft04, values)).toMatchObject({ valid: true, checked: [{ chart: 'chrt', draft: 'draft-04' }] });
    // Under draft-04 `exclusiveMinimum: true` makes `minimum: 0` exclusive; draft-06+ would reject the boolean.
    expect(validateValues(draft04, { ...values, age: 0 }).errors.map((e) => [e.path, e.message])).toEqual([['/age', 'must be > 0']]);
    expect(validateValues(draft04, { ...values, age: 1 }).valid).toBe(true);
    const draft06 = schemaOnly(readJson('test-values-draft-06.schema.json'));
    expect(validateValues(draft06, values)).toMatchObject({ valid: true, checked: [{ chart: 'chrt', draft: 'draft-06' }] });
    expect(failures(validateValues(draft06, readValues('test-values-negative.yaml'))).sort()).toEqual([
      'chrt /age',
      'chrt /employmentInfo',
    ]);
  });

  it('checks `format` for draft-07 only; 2019-09 and 2020-12 (and no $schema) treat it as an annotation', () => {
    const values = { ...readValues('test-values.yaml'), email: 'not an address' };
    const draft07 = validateValues(schemaOnly(readJson('test-values-format-draft-07.schema.json')), values);
    expect(draft07.errors.map((e) => [e.path, e.keyword])).toEqual([['/email', 'format']]);
    for (const file of ['test-values-format-2019-09.schema.json', 'test-values-format-no-dialect.schema.json'])
      expect(validateValues(schemaOnly(readJson(file)), values).errors, file).toEqual([]);
    expect(
      validateValues(schemaOnly(readJson('test-values-format-draft-07.schema.json')), { ...values, email: 'a@example.com' }).valid,
    ).toBe(true);
  });

  it("refuses a schema that is not one (Helm's test-values-invalid.schema.json) and an unknown dialect", () => {
    const invalid = validateValues(schemaOnly(readJson('test-values-invalid.schema.json')), readValues('test-values.yaml'));
    expect(invalid.valid).toBe(false);
    expect(invalid.errors[0]).toMatchObject({ keyword: '$schema', message: expect.stringContaining('not a valid 2020-12 schema') });
    const unknown = validateValues(schemaOnly({ $schema: 'https://example.com/my-dialect', type: 'object' }), {});
    expect(unknown.errors[0]?.message).toContain('unsupported JSON Schema dialect https://example.com/my-dialect');
    expect(schemaDraft({ $schema: 'https://json-schema.org/draft-07/schema' })).toBe('draft-07');
    expect(schemaDraft({ $schema: 'http://json-schema.org/draft/2020-12/schema#' })).toBe('2020-12');
    expect(schemaDraft({ $schema: 'http://json-schema.org/schema' })).toBe('2020-12');
  });
});

// Issue 20 L3 (review 2026-11-24-helm §2 L3): schemas with a remote `$ref` were refused as "not a
// valid schema". Helm ≥ 3.18.5 fetches http, https and file references (v3.21.4
// pkg/chartutil/jsonschema.go:127-133); opsgate never fetches a chart's URLs (a chart could make
// the server read its files or reach internal addresses) and checks the rest of the schema. The
// URL is the shape `find_string` found in public charts (`"$ref": "https://kubernetesjsonschema.dev…`).
describe('schemas that refer to other documents by URL (L3)', () => {
  async function withServer<T>(use: (base: string, hits: () => number) => Promise<T>): Promise<T> {
    let hits = 0;
    const server = createServer((_request, response) => {
      hits++;
      response.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      return await use(`http://127.0.0.1:${port}`, () => hits);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  const schema = (base: string) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['port'],
    properties: {
      port: { type: 'integer' },
      resources: {
        $ref: 'https://kubernetesjsonschema.dev/v1.18.0/_definitions.json#/definitions/io.k8s.api.core.v1.ResourceRequirements',
      },
      affinity: { $ref: 'https://kubernetesjsonschema.dev/v1.18.0/_definitions.json#/definitions/io.k8s.api.core.v1.Affinity' },
      internal: { $ref: `${base}/secret-metadata.json` },
      sibling: { $ref: 'common.schema.json#/$defs/name' },
    },
  });

  it('validates the rest of the schema, names each document it did not fetch, and fetches nothing', async () => {
    await withServer(async (base, hits) => {
      const good = validateValues(schemaOnly(schema(base)), { port: 80, resources: { limits: { cpu: '1' } }, internal: 42 });
      expect(good.valid).toBe(true);
      expect(good.unresolvedRefs).toEqual([
        { chart: 'chrt', ref: 'https://kubernetesjsonschema.dev/v1.18.0/_definitions.json' },
        { chart: 'chrt', ref: `${base}/secret-metadata.json` },
        { chart: 'chrt', ref: 'common.schema.json' },
      ]);
      const bad = validateValues(schemaOnly(schema(base)), { port: 'eighty' });
      expect(bad.errors.map((e) => `${e.path} ${e.message}`)).toEqual(['/port must be integer']);
      expect(hits()).toBe(0);
    });
  });

  it('the plan says which parts of the schema were left to Helm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-remote-ref-'));
    const fake = await inProcessFakeHelm('v3');
    try {
      cpSync(join(SOURCES_DIR, 'webapp-1.1.0'), join(dir, 'sources', 'webapp-1.1.0'), { recursive: true });
      const file = join(dir, 'sources', 'webapp-1.1.0', 'values.schema.json');
      const webapp = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
      webapp.properties.resources = {
        $ref: 'https://kubernetesjsonschema.dev/v1.18.0/_definitions.json#/definitions/io.k8s.api.core.v1.ResourceRequirements',
      };
      writeFileSync(file, JSON.stringify(webapp));
      await buildRepository(join(dir, 'repo'), join(dir, 'sources'));
      const helm = new HelmService(fake.cluster, await ChartRepository.open(join(dir, 'repo')));
      const plan = await helm.plan({ operation: 'install', release: 'web', namespace: 'default', chart: 'webapp' });
      expect(plan.risks.join('\n')).toMatch(
        /without the schema documents https:\/\/kubernetesjsonschema\.dev\/v1\.18\.0\/_definitions\.json .*never fetches.*simulator does not validate/,
      );
    } finally {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Review 2026-11-24-helm §2 "Cosmetic": the validator was the same for every Helm version, but
// Helm 3.13.0–3.18.4 validate with xeipuuv/gojsonschema (v3.18.4 pkg/chartutil/jsonschema.go),
// whose draft.go keeps its "hybrid" draft-07 reading when `$schema` is absent or newer than
// draft-07, and whose format_checkers.go checks formats whatever the draft.
describe('the validator of the Helm in use (3.13–3.18.4: gojsonschema; 3.18.5+ and 4: jsonschema v6)', () => {
  const schema = {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email' },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
    },
  };
  const values = { email: 'not-an-email', pair: ['a', 'b'] };

  it('gojsonschema asserts formats without $schema and ignores 2020-12 keywords; jsonschema v6 the other way round', () => {
    const old = validateValues(schemaOnly(schema), values, 'gojsonschema');
    expect(old.errors.map((e) => `${e.path} ${e.keyword}`)).toEqual(['/email format']);
    expect(old.checked).toEqual([{ chart: 'chrt', draft: 'hybrid (gojsonschema)' }]);
    const current = validateValues(schemaOnly(schema), values);
    expect(current.errors.map((e) => `${e.path} ${e.keyword}`)).toEqual(['/pair/1 type']);
    expect(current.checked).toEqual([{ chart: 'chrt', draft: '2020-12' }]);
    // A declared draft-04 is read as draft-04 by both.
    expect(
      validateValues(schemaOnly({ ...schema, $schema: 'http://json-schema.org/draft-04/schema#' }), values, 'gojsonschema').checked,
    ).toEqual([{ chart: 'chrt', draft: 'draft-04' }]);
  });

  it('the CLI backend picks the validator by `helm version` (v3.18.4 vs v3.18.5)', async () => {
    for (const [version, validator] of [
      ['v3.17.3+ge4da497', 'gojsonschema'],
      ['v3.18.4+gd80839c', 'gojsonschema'],
      ['v3.18.5+gb78692c', 'jsonschema-v6'],
      ['v4.2.4+g9b5f4a1', 'jsonschema-v6'],
    ] as const) {
      const fake = await inProcessFakeHelm(version);
      try {
        const cli = new HelmCli({ helmPath: fake.helmPath, kubectlPath: fake.kubectlPath, run: fake.run });
        expect(await cli.schemaValidator(), version).toBe(validator);
      } finally {
        await fake.close();
      }
    }
  });
});
