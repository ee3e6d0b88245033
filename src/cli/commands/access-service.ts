import { once } from 'node:events';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';

const usage = `Usage: opsgate access-service [--port 8000] [--host 127.0.0.1] [--no-demo]

Runs the access-catalog REST service alone (the access agent reaches it with ACCESS_API_URL).
Endpoints: GET /admin/accesses?limit&offset[&team]  (X-Admin-Key)
           GET|POST /users/{user_id}/accesses        (X-Username)
           POST /admin/accesses · POST /admin/users · DELETE /admin/users/{id}/accesses/{name} · GET /me
Tables live in the opsgate store: SQLite under OPSGATE_DATA_DIR, or PostgreSQL with OPSGATE_DATABASE_URL.
Demo data (the spec's catalog, users john_doe = 1, jane_smith, bob_wilson) is created on first start.

Options:
  --port N     port to listen on (default 8000; 0 picks a free one)
  --host H     address to bind (default 127.0.0.1)
  --no-demo    do not create the demo data

Environment:
  ACCESS_ADMIN_KEY   required: the key admin calls must send as X-Admin-Key`;

/** `opsgate access-service`: the catalog service on its own port, until SIGINT or SIGTERM. */
export const accessServiceCommand: CliCommand = {
  name: 'access-service',
  summary: 'run the access-catalog REST service (GET/POST /users/{id}/accesses, /admin/accesses)',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { port: { type: 'string' }, host: { type: 'string' }, 'no-demo': { type: 'boolean' } });
    const port = parseIntegerOption('port', values.port, 8000, 0, 65535);
    const host = values.host ?? '127.0.0.1';
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new UsageError(`--host must be an address or host name, got "${host}"`);
    const adminKey = io.env.ACCESS_ADMIN_KEY ?? '';
    if (adminKey.length < 8) throw new UsageError('set ACCESS_ADMIN_KEY (at least 8 characters): admin calls must send it as X-Admin-Key');

    const { openStore } = await import('../../core/store/index.ts');
    const { accessCatalogMigrations, createAccessService, formatDemoTable, seedAccessDemoData } = await import(
      '../../agents/access/service/index.ts'
    );
    const { agents } = await import('../../agents/index.ts');
    const pino = (await import('pino')).default;
    // Every agent's migrations, not only the catalog's: Kysely refuses a store whose applied
    // migrations (e.g. by `opsgate serve`) are missing from the list it is given.
    const store = await openStore({
      migrations: [...accessCatalogMigrations, ...agents.flatMap((agent) => agent.migrations ?? [])],
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      ...(io.env.OPSGATE_DATA_DIR ? { dataDir: io.env.OPSGATE_DATA_DIR } : {}),
    });
    try {
      if (!values['no-demo']) {
        const seed = await seedAccessDemoData(store);
        io.stdout.write(
          seed.created > 0
            ? `Demo data created in ${store.location}:\n${formatDemoTable(seed)}\n`
            : `Catalog in ${store.location} (demo data already there)\n`,
        );
      }
      const logger = pino({ level: io.env.OPSGATE_LOG_LEVEL ?? 'warn' }, pino.destination(2));
      const app = createAccessService({ store, adminKey, logger });
      const url = await app.listen({ port, host });
      io.stdout.write(`access catalog listening on ${url}\n`);
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      await app.close();
      io.stdout.write('access catalog stopped\n');
      return 0;
    } finally {
      await store.close();
    }
  },
};
