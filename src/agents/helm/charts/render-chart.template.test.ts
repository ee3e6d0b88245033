import { describe, expect, it, vi } from 'vitest';
import { formatGoFloat, formatGoValue, goQuote, goToJson, goToYaml } from './go-values.ts';
import { renderTemplate } from './render-chart.ts';

// Expected strings are what Go's fmt/text/template, Sprig and Helm's engine print for the same
// input (Helm v3.21.4 pkg/engine: `<no value>` deleted, toYaml = sigs.k8s.io/yaml minus the last newline).
const scope = {
  Values: {
    resources: { limits: { memory: '256Mi', cpu: '500m' } },
    list: ['a', 'b', { z: null }],
    empty: {},
    zero: 0,
    big: 1_000_000,
    half: 0.5,
    name: 'web "edge"\n',
    html: '<a&b>',
  },
  Release: { Name: 'web', Namespace: 'default', Revision: 2n, Service: 'Helm' },
};

function render(template: string): string {
  return renderTemplate(template, scope, 'demo/templates/t.yaml');
}

function renderError(template: string): { code: string; message: string } {
  try {
    render(template);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error(`expected ${template} to fail`);
}

describe('values print as Go prints them', () => {
  it('a map prints as map[...] with sorted keys, which is the bug real charts hit with a bare {{ .Values.resources }}', () => {
    expect(render('resources: {{ .Values.resources }}')).toBe('resources: map[limits:map[cpu:500m memory:256Mi]]');
    expect(render('{{ .Values.list }}')).toBe('[a b map[z:<nil>]]');
    expect(render('{{ .Values.empty }}')).toBe('map[]');
  });

  it('a missing value prints nothing (Go prints <no value>, Helm deletes it) and a field of nil fails', () => {
    expect(formatGoValue(undefined)).toBe('<no value>');
    expect(render('a: {{ .Values.missing }}')).toBe('a: ');
    expect(renderError('{{ .Values.missing.deeper }}')).toMatchObject({ code: 'HELM_RENDER_FAILED' });
    expect(renderError('{{ .Values.missing.deeper }}').message).toContain('nil pointer evaluating interface {}.deeper');
    expect(renderError('{{ .Release.Name.x }}').message).toContain("can't evaluate field x in type string");
  });

  it('numbers from values are float64 (1e+06), numbers written in the template are ints', () => {
    expect(render('{{ .Values.big }} {{ .Values.half }} {{ .Values.zero }} {{ 1000000 }} {{ .Release.Revision }}')).toBe(
      '1e+06 0.5 0 1000000 2',
    );
    expect([123456, 1234567, 0.0001, 0.00001, -2.5e-7, 1e21].map(formatGoFloat)).toEqual([
      '123456',
      '1.234567e+06',
      '0.0001',
      '1e-05',
      '-2.5e-07',
      '1e+21',
    ]);
  });
});

describe('functions have Helm/Sprig semantics', () => {
  it('toYaml | nindent under a trimmed key gives a YAML block (helm create layout)', () => {
    const template = 'containers:\n  - resources:\n      {{- toYaml .Values.resources | nindent 6 }}\n    name: x';
    expect(render(template)).toBe('containers:\n  - resources:\n      limits:\n        cpu: 500m\n        memory: 256Mi\n    name: x');
    expect(render('r:\n  {{- toYaml .Values.empty | nindent 2 }}')).toBe('r:\n  {}');
    expect(goToYaml({ b: ['x', 'yes', '1.0'], a: null })).toBe('a: null\nb:\n- x\n- "yes"\n- "1.0"');
  });

  it('indent pads every line; nindent adds the leading newline', () => {
    expect(render('{{ indent 2 "a\\nb" }}')).toBe('  a\n  b');
    expect(render('x:{{ nindent 2 "a" }}')).toBe('x:\n  a');
  });

  it('quote is Go %q of the value and skips nil; squote does not escape', () => {
    expect(render('{{ .Values.name | quote }}')).toBe('"web \\"edge\\"\\n"');
    expect(render('{{ .Values.half | quote }} [{{ .Values.missing | quote }}] {{ .Values.zero | squote }}')).toBe('"0.5" [] \'0\'');
    expect(goQuote('é\u0001\u00a0')).toBe('"é\\x01\\u00a0"');
  });

  it('default replaces every Sprig-empty value (nil, 0, "", false, empty map), not only a missing one', () => {
    expect(render('{{ .Values.zero | default 3 }} {{ .Values.missing | default "x" }} {{ .Values.half | default 3 }}')).toBe('3 x 0.5');
    expect(render('{{ default "d" .Values.empty }}')).toBe('d');
  });

  it('toJson sorts keys and escapes HTML characters like Go json.Marshal', () => {
    expect(render('{{ toJson .Values.resources }}')).toBe('{"limits":{"cpu":"500m","memory":"256Mi"}}');
    expect(goToJson({ s: '<a&b>' })).toBe('{"s":"\\u003ca\\u0026b\\u003e"}');
  });

  it('required fails with its message on nil or ""', () => {
    expect(render('{{ required "set name" .Values.name | quote }}')).toBe('"web \\"edge\\"\\n"');
    expect(renderError('{{ required "image.tag is required" .Values.missing }}').message).toContain('image.tag is required');
  });

  it('wrong argument types fail the way Go templates do', () => {
    expect(renderError('{{ nindent 2 .Values.resources }}').message).toContain('expected string; got map[string]interface {}');
    expect(renderError('{{ nindent .Values.half "a" }}').message).toContain('expected int; got float64');
    expect(renderError('{{ upper .Values.zero }}').message).toContain('expected string; got float64');
  });
});

describe('template syntax', () => {
  it('trim markers remove whitespace on their side; comments print nothing', () => {
    expect(render('a:  \n  {{- .Release.Name }}  ')).toBe('a:web  ');
    expect(render('{{ .Release.Name -}}  \n\n x')).toBe('webx');
    expect(render('a{{/* why */}}b {{- /* trimmed */ -}} c')).toBe('abc');
  });

  it('parenthesised pipelines and pipes pass the value as the last argument', () => {
    expect(render('{{ (.Values.missing | default "in") | upper | quote }}')).toBe('"IN"');
  });

  it('what this renderer does not implement fails loudly instead of rendering something Helm would not', () => {
    for (const template of ['{{ if .Values.zero }}x{{ end }}', '{{ include "x.labels" . }}', '{{ $x := 1 }}', '{{ .Values.half 3 }}']) {
      expect(renderError(template)).toMatchObject({ code: 'HELM_RENDER_FAILED' });
    }
    expect(renderError('a\n{{ include "x.labels" . }}').message).toContain('demo/templates/t.yaml:2');
  });
});

// Sprig's `now`, `date` and `unixEpoch` (issue 20 M8: charts stamp objects with the render time).
// Go's layout is its reference time, Mon Jan 2 15:04:05 MST 2006 (Go time.Format).
describe('clock functions', () => {
  it('date LAYOUT and unixEpoch of now print the render time as Go does (UTC)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-04T05:06:07Z'));
      expect(render('{{ now | date "2006-01-02T15:04:05Z" }}')).toBe('2026-03-04T05:06:07Z');
      expect(render('{{ now | date "02 Jan 2006 15:04 MST" }}')).toBe('04 Mar 2026 05:06 UTC');
      expect(render('{{ now | date "20060102" }}')).toBe('20260304');
      expect(render('{{ now | unixEpoch }}')).toBe('1772600767');
      expect(renderError('{{ date "2006" "x" }}')).toMatchObject({ code: 'HELM_RENDER_FAILED' });
    } finally {
      vi.useRealTimers();
    }
  });
});
