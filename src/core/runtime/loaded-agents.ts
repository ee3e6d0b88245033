import type { Logger } from 'pino';
import { type AgentDefinition, type SecretStore, STANDARD_PHASE } from '../agent/define-agent.ts';
import { type AuditLog, agentActor } from '../audit/index.ts';
import { CoreErrors } from '../errors/index.ts';
import { readOnlyRetryMiddleware } from '../middleware/index.ts';
import { createOfflineModel } from '../model/index.ts';
import { resolveDataDir, type Store } from '../store/index.ts';
import { ToolRegistry } from '../tools/index.ts';
import { humanInputTool } from './human-input-tool.ts';
import type { AgentInfo, RuntimeOptions } from './runtime-api.ts';
import { toModelTool } from './tool-schemas.ts';
import type { LoadedAgent } from './working-session.ts';

export interface AgentSetupDeps {
  readonly store: Store;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly secrets: SecretStore;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
}

/** The agents one runtime carries, each set up once: its tools in a registry, its model, its middleware. */
export class LoadedAgents {
  readonly #byName: ReadonlyMap<string, LoadedAgent>;

  private constructor(byName: ReadonlyMap<string, LoadedAgent>) {
    this.#byName = byName;
  }

  /** Migrates what the agents contribute to the store, then sets each agent up in the order given. */
  static async setUp(options: RuntimeOptions, deps: AgentSetupDeps): Promise<LoadedAgents> {
    await deps.store.migrate(options.agents.flatMap((agent) => agent.migrations ?? []));
    const byName = new Map<string, LoadedAgent>();
    for (const definition of options.agents) byName.set(definition.name, await setUpAgent(definition, options, deps));
    return new LoadedAgents(byName);
  }

  /** The agent, or UNKNOWN_AGENT naming the ones there are. */
  get(name: string): LoadedAgent {
    const agent = this.#byName.get(name);
    if (!agent) throw CoreErrors.UNKNOWN_AGENT({ agent: name, available: [...this.#byName.keys()].join(', ') || '(none)' });
    return agent;
  }

  find(name: string): LoadedAgent | undefined {
    return this.#byName.get(name);
  }

  infos(): AgentInfo[] {
    return [...this.#byName.values()].map(agentInfo);
  }

  async close(): Promise<void> {
    for (const agent of this.#byName.values()) await agent.parts.close?.();
  }
}

async function setUpAgent(definition: AgentDefinition, options: RuntimeOptions, deps: AgentSetupDeps): Promise<LoadedAgent> {
  const { audit, logger, now } = deps;
  const parts = await definition.setup({
    store: deps.store,
    logger: logger.child({ agent: definition.name }),
    dataDir: resolveDataDir(options.dataDir),
    env: deps.env,
    options: options.agentOptions?.[definition.name] ?? {},
    secrets: deps.secrets,
    clock: { now },
  });
  const registry = new ToolRegistry({
    logger,
    onWarning: (warning) => {
      void audit.append({
        type: 'warning',
        actor: agentActor(definition.name),
        payload: { code: warning.code, tool: warning.toolName, message: warning.message },
      });
    },
  });
  for (const tool of parts.tools) registry.register(tool);
  // The agent's own later definition is the one to use, even where a read-only tool became a
  // write: keeping the read-only one would run the write unguarded.
  parts.watchTools?.((tools) => {
    for (const tool of tools) registry.register(tool, { forceOverride: true });
  });
  if (parts.workflow) registry.register(humanInputTool);
  else if (!registry.has(humanInputTool.name)) registry.register({ ...humanInputTool, allowedPhases: [STANDARD_PHASE] });
  const model = options.model?.(definition) ?? createOfflineModel(definition.name, parts.interpreter);
  return {
    definition,
    parts,
    registry,
    model,
    middleware: [...(parts.middleware ?? []), ...(parts.retryReadOnlyTools === false ? [] : [readOnlyRetryMiddleware()])],
  };
}

function agentInfo({ definition, parts, registry }: LoadedAgent): AgentInfo {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    pillars: definition.pillars ?? [definition.name],
    ...(parts.notice ? { notice: parts.notice } : {}),
    ...(parts.workflow ? { phases: parts.workflow.phases.map((p) => ({ name: p.name, title: p.title })) } : {}),
    help: parts.interpreter?.help ?? [],
    tools: registry.all().map((t) => ({
      name: t.name,
      description: t.description,
      mutability: t.mutability,
      risk: t.risk,
      inputSchema: toModelTool(t).inputSchema as Record<string, unknown>,
    })),
  };
}
