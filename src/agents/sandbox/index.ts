import { defineAgent } from '../../core/agent/define-agent.ts';
import { connectInMemory } from './bridge/connect.ts';
import { DbBridge } from './bridge/db-bridge.ts';
import { demoDatabasePath, ensureDemoDatabase } from './demo/index.ts';
import { openSandboxEngine } from './engines/open-engine.ts';
import { sandboxInterpreter } from './intents.ts';
import { SANDBOX_INSTRUCTIONS } from './prompt.ts';
import { bridgesPerSession, STAGING_TOOLS, sandboxTools } from './tools/sandbox-tools.ts';

export { demoDatabasePath } from './demo/index.ts';

/** The name of the auto-approve rule for calls that only touch an uncommitted transaction. */
export const STAGING_RULE = 'sandbox-uncommitted-transaction';

/**
 * The sandbox agent: inspects a SQL database freely and changes it only through a transaction
 * whose changes a person has seen and committed. Options: `db` (a SQLite file; default the demo
 * database under the data dir) or `url` (PostgreSQL), with `safeFunctions`: the comma-separated
 * `schema.name`s of functions defined in that database that an admin allows on the read path.
 */
export const sandboxAgent = defineAgent({
  name: 'sandbox',
  title: 'SQL sandbox',
  description: 'Inspect a SQL database freely; change it only through a transaction you have reviewed and committed.',
  instructions: SANDBOX_INSTRUCTIONS,
  async setup(context) {
    const url = context.options.url;
    const db = context.options.db ?? ensureDemoDatabase(demoDatabasePath(context.dataDir));
    const safeFunctions = (context.options.safeFunctions ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const engine = await openSandboxEngine(url ? { url, safeFunctions } : { db });
    const connection = await connectInMemory(engine);
    // The password of a URL never reaches the logs or the model.
    const label = url ? url.replace(/\/\/[^@/]*@/, '//***@') : db;
    const bridgeFor = bridgesPerSession(connection.channel, label, (session, dbPath) => new DbBridge(session, dbPath));
    context.logger.info({ agent: 'sandbox', database: label }, 'sandbox database opened');
    return {
      tools: sandboxTools(bridgeFor),
      interpreter: sandboxInterpreter,
      autoApproveRules: [{ name: STAGING_RULE, applies: ({ tool }) => STAGING_TOOLS.has(tool.name) }],
      close: () => connection.close(),
    };
  },
});
