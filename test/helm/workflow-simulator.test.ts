import { defineHelmWorkflowTests, simulatorBackends } from './workflow-cases.ts';

defineHelmWorkflowTests(simulatorBackends);
