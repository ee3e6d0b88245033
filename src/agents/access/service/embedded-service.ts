import { randomBytes } from 'node:crypto';
import type { AgentSetupContext } from '../../../core/agent/define-agent.ts';
import { AuditLog } from '../../../core/audit/index.ts';
import {
  accessCatalogMigrations,
  createAccessService,
  type ExpirySweeper,
  formatDemoTable,
  seedAccessDemoData,
  startExpirySweeper,
} from './index.ts';

export interface AccessBackend {
  readonly baseUrl: string;
  readonly adminKey: string;
  /** Where the catalog lives, for logs: the URL given, or "embedded". */
  readonly mode: 'remote' | 'embedded';
  /** Embedded mode only: revokes expired grants with an audit event (a remote catalog owns its own expiry). */
  readonly sweeper?: ExpirySweeper;
  /** Teams given to a login the embedded catalog creates on first use (`ACCESS_DEFAULT_TEAMS`, comma-separated). Default engineering. */
  readonly provisionTeams: readonly string[];
  close(): Promise<void>;
}

/**
 * The catalog the agent talks to over HTTP: `ACCESS_API_URL` when set (with `ACCESS_ADMIN_KEY`),
 * else the service started here on an ephemeral loopback port, over the opsgate store, seeded with
 * the demo data. The admin key is generated when `ACCESS_ADMIN_KEY` is unset and stays in this process.
 */
export async function startAccessBackend(context: AgentSetupContext): Promise<AccessBackend> {
  const url = context.env.ACCESS_API_URL ?? context.options.apiUrl;
  const configuredKey = context.env.ACCESS_ADMIN_KEY ?? '';
  if (url) {
    if (configuredKey === '')
      context.logger.warn('ACCESS_API_URL is set but ACCESS_ADMIN_KEY is not: listing the catalog will fail with "Authentication failed"');
    return { baseUrl: url, adminKey: configuredKey, mode: 'remote', provisionTeams: [], close: async () => {} };
  }
  await context.store.migrate([...accessCatalogMigrations]);
  const seed = await seedAccessDemoData(context.store, context.clock);
  if (seed.created > 0) context.logger.info({ created: seed.created }, `access catalog demo data created:\n${formatDemoTable(seed)}`);
  const adminKey = configuredKey || randomBytes(24).toString('hex');
  const app = createAccessService({ store: context.store, adminKey, clock: context.clock });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  context.logger.info({ url: baseUrl }, 'access catalog service embedded on loopback');
  const sweeper = startExpirySweeper({
    store: context.store,
    audit: new AuditLog(context.store, () => context.clock.now()),
    clock: context.clock,
    logger: context.logger,
  });
  sweeper.sweepOnce().catch((error: unknown) => context.logger.error({ err: error }, 'access expiry sweep failed'));
  const provisionTeams = (context.env.ACCESS_DEFAULT_TEAMS ?? 'engineering')
    .split(',')
    .map((team) => team.trim().toLowerCase())
    .filter((team) => team !== '');
  return {
    baseUrl,
    adminKey,
    mode: 'embedded',
    sweeper,
    provisionTeams,
    close: async () => {
      sweeper.stop();
      await app.close();
    },
  };
}
