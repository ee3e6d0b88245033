import pino, { type Logger } from 'pino';
import { agents as allAgents } from '../agents/index.ts';
import type { AgentDefinition } from '../core/agent/index.ts';
import { CoreErrors } from '../core/errors/index.ts';
import { chooseModel, createConfiguredModel, describeModelChoice } from '../core/model/index.ts';
import { type CallPolicy, createCedarPolicy, loadPolicyDirectory } from '../core/policy/index.ts';
import { createRuntime, type Runtime } from '../core/runtime/index.ts';
import { openStore, resolveDataDir, type Store } from '../core/store/index.ts';
import type { RuntimeObserver } from '../core/telemetry/index.ts';
import { Gateway, loadGatewayConfig } from '../gateway/index.ts';
import { OidcIdentities, oidcConfigFromEnv } from '../server/oidc/index.ts';

export interface OpenOpsgateOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly dataDir?: string;
  /** Only these agents (default: all). */
  readonly agentNames?: readonly string[];
  readonly agentOptions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly logger?: Logger;
  /** Model steps per turn. Default from `OPSGATE_STEP_LIMIT`, else 20. */
  readonly stepLimit?: number;
  /** Receives the runtime's metrics. Default none. */
  readonly observer?: RuntimeObserver;
}

/** `OPSGATE_POLICY_DIR` (validated now, a typed error when broken), else the default policy. */
function policyFromEnvironment(env: Readonly<Record<string, string | undefined>>): CallPolicy {
  return createCedarPolicy(loadPolicyDirectory(env.OPSGATE_POLICY_DIR || undefined));
}

export interface Opsgate {
  readonly store: Store;
  readonly runtime: Runtime;
  readonly dataDir: string;
  /** The MCP gateway, when `OPSGATE_GATEWAY_CONFIG` names its configuration (its upstreams are agents of the runtime). */
  readonly gateway?: Gateway;
  /** e.g. `offline interpreter (no model key set)` or `openai:gpt-4.1`. */
  readonly modelDescription: string;
  close(): Promise<void>;
}

/** `OPSGATE_STEP_LIMIT`: a whole number of model steps per turn, 1 to 1,000. */
function parseStepLimit(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > 1000) {
    throw CoreErrors.CONFIG_INVALID({ detail: `OPSGATE_STEP_LIMIT must be a whole number from 1 to 1000, got "${raw}"` });
  }
  return Number(raw);
}

/** The composition root: the store from config, every agent, the model from the environment. */
export async function openOpsgate(options: OpenOpsgateOptions = {}): Promise<Opsgate> {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(options.dataDir ?? env.OPSGATE_DATA_DIR);
  const choice = chooseModel(env);
  const gateway = env.OPSGATE_GATEWAY_CONFIG ? new Gateway(loadGatewayConfig(env.OPSGATE_GATEWAY_CONFIG, env)) : undefined;
  const selected: AgentDefinition[] = [
    ...(options.agentNames ? allAgents.filter((a) => options.agentNames!.includes(a.name)) : allAgents),
    ...(gateway?.agents ?? []),
  ];
  const stepLimit = options.stepLimit ?? parseStepLimit(env.OPSGATE_STEP_LIMIT);
  const policy = policyFromEnvironment(env);
  const sso = oidcConfigFromEnv(env);
  const store = await openStore({
    dataDir,
    databaseUrl: env.OPSGATE_DATABASE_URL ?? '',
    auditKey: env.OPSGATE_AUDIT_KEY ?? '',
    auditCheckpointFile: env.OPSGATE_AUDIT_CHECKPOINT_FILE ?? '',
    auditAnchorCommand: env.OPSGATE_AUDIT_ANCHOR_COMMAND ?? '',
    auditAnchorReadCommand: env.OPSGATE_AUDIT_ANCHOR_READ_COMMAND ?? '',
  });
  try {
    // With single sign-on, people's teams come from the claims of their last sign-on.
    const teamDirectory = sso ? await OidcIdentities.create(store) : undefined;
    const runtime = await createRuntime({
      store,
      agents: selected,
      policy,
      ...(teamDirectory ? { teamDirectory } : {}),
      ...(choice ? { model: () => createConfiguredModel(choice, env) } : {}),
      logger: options.logger ?? pino({ level: env.OPSGATE_LOG_LEVEL ?? 'warn' }, pino.destination(2)),
      dataDir,
      env,
      ...(stepLimit ? { stepLimit } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
      ...(options.agentOptions ? { agentOptions: options.agentOptions } : {}),
    });
    gateway?.attach(runtime);
    return {
      store,
      runtime,
      dataDir,
      ...(gateway ? { gateway } : {}),
      modelDescription: describeModelChoice(choice),
      async close() {
        await runtime.close();
        await store.close();
      },
    };
  } catch (error) {
    await gateway?.close();
    await store.close();
    throw error;
  }
}
