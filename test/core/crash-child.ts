// Child process for the crash test: approves a transfer whose tool blocks forever, after writing a
// marker file, so the parent can kill -9 this process while the call is `executing`.
import { writeFileSync } from 'node:fs';
import { createRuntime } from '../../src/core/runtime/index.ts';
import { openStore } from '../../src/core/store/index.ts';
import { createLedgerAgent, createLedgerModel } from '../../src/testing/index.ts';

const [sqlitePath, markerPath] = process.argv.slice(2) as [string, string];
const store = await openStore({ sqlitePath, databaseUrl: '' });
// A pending promise alone does not keep Node alive; this timer does, like a real tool's socket would.
setInterval(() => {}, 60_000);
const recorder = {
  reads: 0,
  transfers: [],
  holdTransfer: new Promise<void>(() => {}),
  onTransferStart: () => writeFileSync(markerPath, 'executing'),
};
const runtime = await createRuntime({ store, agents: [createLedgerAgent(recorder)], model: () => createLedgerModel() });
const alice = { userId: 1, username: 'alice', roles: ['user'] };
const session = await runtime.startSession({ agent: 'ledger', identity: alice });
const turn = await runtime.send(session.id, 'pay bob 30', alice);
writeFileSync(`${markerPath}.session`, session.id);
await runtime.decide(session.id, { type: 'approve', callId: turn.interrupt!.callId }, alice);
