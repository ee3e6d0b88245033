import type { AgentDefinition } from '../core/agent/index.ts';
import { accessAgent } from './access/index.ts';
import { helmAgent } from './helm/index.ts';
import { sandboxAgent } from './sandbox/index.ts';
import { troubleshootAgent } from './troubleshoot/index.ts';

/** Every agent opsgate carries. Adding an agent is one line here plus its own folder. */
export const agents: readonly AgentDefinition[] = [accessAgent, helmAgent, troubleshootAgent, sandboxAgent];
