import { defineHelmWorkflowTests, helmCliBackend } from './workflow-cases.ts';

// The fake `helm` (test/helm/fake-helm), only for faults the real binaries cannot be made to show
// against the stub: pods crashing after Helm's --wait succeeded, and a release left in
// pending-upgrade by an interrupted Helm. The workflows themselves run on the real binaries
// (workflow-helm3.test.ts, workflow-helm4.test.ts).
defineHelmWorkflowTests([{ ...helmCliBackend('v4'), faultsOnly: true }]);
