import type { AgentDefinition } from '../core/agent/index.ts';
import { accessAgent } from './access/index.ts';
import { helmAgent } from './helm/index.ts';
import { sandboxAgent } from './sandbox/index.ts';
import { troubleshootAgent } from './troubleshoot/index.ts';

/** Every agent opsgate carries: the server, CLI, MCP and the every-agent tests read this list. How to add one: docs/agents/new-agent.md. */
export const agents: readonly AgentDefinition[] = [accessAgent, helmAgent, troubleshootAgent, sandboxAgent];
