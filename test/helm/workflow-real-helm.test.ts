import { describe, it } from 'vitest';
import { defineHelmWorkflowTests, realHelmBackend } from './workflow-cases.ts';

// Opt-in: OPSGATE_TEST_REAL_HELM=1 with `helm` (3 or 4), `kubectl` and a disposable cluster (kind)
// as the current context. See docs/helm-real-cluster.md.
if (process.env.OPSGATE_TEST_REAL_HELM === '1') defineHelmWorkflowTests([realHelmBackend]);
else
  describe('helm workflows on a real cluster', () => {
    it.skip('needs OPSGATE_TEST_REAL_HELM=1, helm, kubectl and a kind cluster (docs/helm-real-cluster.md)', () => {});
  });
