import { defineHelmWorkflowTests, helmCliBackend } from './workflow-cases.ts';

// The CLI backend against a fake `helm` that answers as Helm 3 (test/helm/fake-helm).
defineHelmWorkflowTests([helmCliBackend('v3')]);
