import { describe, expect, it } from 'vitest';
import type { LoadedChart } from '../../charts/load-chart.ts';
import { crdApiVersions, parseTemplateOutput } from './template-render.ts';

describe('helm template as the Helm 3 plan of a first install with crds/ (issue 30 N2)', () => {
  it("keeps hooks apart from the manifest, as a dry run's release does", () => {
    const output = [
      '---',
      '# Source: op/templates/crontab.yaml',
      'apiVersion: stable.example.com/v1',
      'kind: CronTab',
      'metadata:',
      '  name: nightly',
      '---',
      '# Source: op/templates/migrate.yaml',
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: migrate',
      '  annotations:',
      '    "helm.sh/hook": pre-install,pre-upgrade',
      '',
    ].join('\n');
    const rendered = parseTemplateOutput(output);
    expect(rendered.manifest).toBe(
      '---\n# Source: op/templates/crontab.yaml\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\n',
    );
    expect(rendered.hooks).toEqual([
      {
        key: 'Job/migrate',
        events: ['pre-install', 'pre-upgrade'],
        manifest:
          'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    "helm.sh/hook": pre-install,pre-upgrade',
      },
    ]);
    expect(rendered).toMatchObject({ clientSide: true, renderedWith: 'helm template' });
  });

  it("lists the served versions of the chart's CRDs for --api-versions", () => {
    const crd = (group: string, kind: string, versions: string) =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: ${group}\n  names:\n    kind: ${kind}\n  versions: ${versions}\n`;
    const chart = {
      crds: [
        { path: 'crds/a.yaml', content: crd('stable.example.com', 'CronTab', '[{name: v1, served: true}, {name: v0, served: false}]') },
        { path: 'crds/b.yaml', content: `${crd('x.io', 'Thing', '[{name: v2}]')}---\napiVersion: v1\nkind: ConfigMap\n` },
      ],
    } as unknown as LoadedChart;
    expect(crdApiVersions(chart)).toEqual(['stable.example.com/v1', 'stable.example.com/v1/CronTab', 'x.io/v2', 'x.io/v2/Thing']);
  });
});
