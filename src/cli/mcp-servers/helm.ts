import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { HelmBackend } from '../../agents/helm/backends/backend.ts';
import { HelmCli } from '../../agents/helm/backends/cli/helm-cli.ts';
import { helmSimulatorMigrations } from '../../agents/helm/backends/simulator/migration.ts';
import { SimulatedCluster } from '../../agents/helm/backends/simulator/simulated-cluster.ts';
import { openAgentRepository } from '../../agents/helm/charts/agent-repository.ts';
import { createHelmMcpServer } from '../../agents/helm/mcp/mcp-server.ts';
import { HelmService } from '../../agents/helm/service/helm-service.ts';
import { openStore } from '../../core/store/index.ts';
import { UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

export interface HelmServerArgs {
  readonly backend: 'cli' | 'simulator';
  /** A chart repository folder. Default: the demo repository with the simulator, none with the CLI (issue 30 N5). */
  readonly charts?: string;
}

/** Parses the helm server's own arguments: `--backend cli|simulator`, `--charts DIR`. */
export function parseHelmServerArgs(args: readonly string[]): HelmServerArgs {
  const { values } = parseCommandArgs(args, { backend: { type: 'string' }, charts: { type: 'string' } });
  const backend = values.backend ?? 'simulator';
  if (backend !== 'cli' && backend !== 'simulator') throw new UsageError(`--backend must be "cli" or "simulator", got "${backend}"`);
  return { backend, ...(values.charts ? { charts: values.charts } : {}) };
}

/**
 * Entry point for `opsgate mcp-server helm [--backend cli|simulator] [--charts DIR]`. The
 * simulator keeps its cluster in the opsgate store (`OPSGATE_DATABASE_URL` or the data dir).
 * It lives in the CLI because parsing a command line is the interface's job; the agent only
 * knows how to build a server over a `HelmService`.
 */
export async function createMcpServer(options: { args: readonly string[] }): Promise<McpServer> {
  const parsed = parseHelmServerArgs(options.args);
  const repository = await openAgentRepository(parsed.backend, parsed.charts).catch((error: Error) => {
    throw new UsageError(`--charts ${parsed.charts} is not a chart repository (${error.message.split('\n')[0]})`);
  });
  let backend: HelmBackend;
  let closeStore: (() => Promise<void>) | undefined;
  if (parsed.backend === 'cli') {
    backend = new HelmCli();
  } else {
    const store = await openStore({ migrations: helmSimulatorMigrations });
    closeStore = () => store.close();
    backend = new SimulatedCluster(store);
  }
  const server = createHelmMcpServer(new HelmService(backend, repository));
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void closeStore?.();
  };
  return server;
}
