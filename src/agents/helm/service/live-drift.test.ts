import { describe, expect, it } from 'vitest';
import { parseManifest } from '../charts/render-chart.ts';
import { compareLive, liveRefs } from './live-drift.ts';

const manifest = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27.0
          ports: [{containerPort: 80}]
          resources: {limits: {cpu: 1000m, memory: 256Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: v1
kind: Secret
metadata: {name: web}
stringData: {password: hunter2}
`;

const deployment = (replicas: number, image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', labels: { app: 'web' }, annotations: { 'meta.helm.sh/release-name': 'web' } },
  spec: {
    replicas,
    strategy: { type: 'RollingUpdate' },
    template: {
      spec: {
        containers: [
          { name: 'web', image, ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '1', memory: '256Mi' } } },
        ],
      },
    },
  },
  status: { readyReplicas: replicas },
});

describe('the running release against its live objects', () => {
  const resources = parseManifest(manifest, 'default');

  it('cluster defaults, status and canonical quantities are not drift; a changed field and a missing object are', () => {
    expect(compareLive(resources, [deployment(2, 'nginx:1.27.0')], 'default')).toEqual({
      checked: 2,
      drifted: [],
      missing: ['Service/web'],
      skipped: ['Secret/web (a Secret: its data is not read)'],
    });
    const drift = compareLive(resources, [deployment(5, 'nginx:evil')], 'default');
    expect(drift.drifted).toEqual([
      {
        object: 'Deployment/web',
        changes: [
          { path: 'spec.replicas', release: 2, live: 5 },
          { path: 'spec.template.spec.containers[0].image', release: 'nginx:1.27.0', live: 'nginx:evil' },
        ],
      },
    ]);
  });

  it('never asks for a Secret', () => {
    expect(liveRefs(resources, 'default').map((ref) => ref.kind)).toEqual(['Deployment', 'Service']);
  });
});
