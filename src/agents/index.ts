import type { AgentDefinition } from '../core/agent/index.ts';

/** Every agent opsgate carries. Adding an agent is one line here plus its own folder. */
export const agents: readonly AgentDefinition[] = [];
