import { defineHelmWorkflowTests, realHelmOnStub } from './workflow-cases.ts';

// The CLI backend driving the real Helm 4.1.4 and kubectl 1.35 against the stub API server.
defineHelmWorkflowTests([realHelmOnStub('v4')]);
