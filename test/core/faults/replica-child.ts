// One `opsgate serve`-like replica for the kill -9 fault test: the ledger agent on a shared
// PostgreSQL database behind the real HTTP server, on a loopback port it prints as "PORT n".
// Every executed transfer is appended to the shared transfer log with this process's pid.
import { openStore } from '../../../src/core/store/index.ts';
import { startLedgerServer } from './ledger-server.ts';

const [databaseUrl, transferLog] = process.argv.slice(2) as [string, string];
const store = await openStore({ databaseUrl, poolSize: 4 });
const server = await startLedgerServer(store, { transferLog, heartbeatMs: 200 });
await server.app.listen({ port: 0, host: '127.0.0.1' });
const address = server.app.server.address();
process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
