import { defineHelmWorkflowTests, helmCliBackend } from './workflow-cases.ts';

// The CLI backend against a fake `helm` that answers as Helm 4 (test/helm/fake-helm).
defineHelmWorkflowTests([helmCliBackend('v4')]);
