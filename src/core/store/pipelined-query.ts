import pg from 'pg';

/** What pg's extended-protocol query sends through; pg's own `Query.prepare` is not in its types. */
interface ExtendedQuery {
  prepare(connection: pg.Connection): void;
}

/**
 * pg's query, with statements that take no parameters (`begin`, `savepoint …`) sent ahead of it in
 * the same write and before the same Sync: the server runs them in order and answers once, so a
 * transaction's `begin` costs no round trip of its own (issue 32: one socket write, one wake-up of
 * the backend and one reply fewer per transaction). Their results come first in the reply; the
 * caller reads the last. The first statement runs inside the explicit transaction `begin` opens,
 * exactly as it would after a separate `begin`; an error in any of them fails this query.
 */
class QueryAfterStatements extends pg.Query {
  readonly #ahead: readonly string[];

  constructor(ahead: readonly string[], config: pg.QueryConfig, callback: (error: Error | undefined, result: unknown) => void) {
    super(config, callback as never);
    this.#ahead = ahead;
  }

  prepare(connection: pg.Connection): void {
    for (const text of this.#ahead) {
      connection.parse({ text, name: '', types: [] }, true);
      connection.bind({ statement: '', portal: '', values: [] }, true);
      connection.execute({ portal: '' }, true);
    }
    (pg.Query.prototype as unknown as ExtendedQuery).prepare.call(this, connection);
  }
}

/** Sends `ahead` and then `config`'s statement as one pipeline; resolves to the statement's own result. */
export function queryAfter(client: pg.PoolClient, ahead: readonly string[], config: pg.QueryConfig): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    void client.query(
      new QueryAfterStatements(ahead, config, (error, results) => {
        if (error) reject(error);
        else resolve((Array.isArray(results) ? results.at(-1) : results) as pg.QueryResult);
      }),
    );
  });
}

/** Whether `name` is already parsed on the client's connection: only then may statements go ahead of it (see `preparedStatementsPool`). */
export function parsedOn(client: pg.PoolClient, name: string): boolean {
  const connection = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection;
  return connection?.parsedStatements?.[name] !== undefined;
}
