import { defineHelmWorkflowTests, realHelmOnStub } from './workflow-cases.ts';

// The CLI backend driving the real Helm 3.17.2 and kubectl 1.32 against the stub API server.
defineHelmWorkflowTests([realHelmOnStub('v3')]);
