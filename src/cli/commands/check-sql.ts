import { OpsgateError } from '../../core/errors/index.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = `Usage: opsgate check-sql (--db FILE | --url postgres://…) -- "SQL"

Runs one statement on the sandbox's read-only path and prints JSON
{ "allowed": bool, "reason": string, "rows": [...] }. It never changes the database.

Exit codes: 0 allowed, 3 refused (a write, several statements, a refused action, invalid SQL),
2 usage error, 1 the database cannot be opened.`;

/** `opsgate check-sql`: would the read-only path allow this statement, and what does it return? */
export const checkSqlCommand: CliCommand = {
  name: 'check-sql',
  summary: 'run one statement on the sandbox read-only path; exit 0 allowed, 3 refused',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { db: { type: 'string' }, url: { type: 'string' } }, true);
    if (!values.db && !values.url) throw new UsageError('name the database with --db FILE or --url postgres://…');
    if (values.db && values.url) throw new UsageError('use either --db or --url, not both');
    if (positionals.length !== 1 || !positionals[0]!.trim()) throw new UsageError('give exactly one SQL text after --, e.g. -- "SELECT 1"');
    const { openSandboxEngine } = await import('../../agents/sandbox/engines/open-engine.ts');
    const engine = await openSandboxEngine(values.url ? { url: values.url } : { db: values.db! });
    try {
      const result = await engine.query(positionals[0]!);
      io.stdout.write(`${JSON.stringify({ allowed: true, reason: 'a single read statement', rows: result.rows })}\n`);
      return 0;
    } catch (error) {
      if (!OpsgateError.isInstance(error)) throw error;
      const refused = error.code !== 'SANDBOX_UNAVAILABLE';
      io.stdout.write(`${JSON.stringify({ allowed: false, reason: error.message, code: error.code, rows: [] })}\n`);
      return refused ? 3 : 1;
    } finally {
      await engine.close();
    }
  },
};
