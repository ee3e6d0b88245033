import { createHash } from 'node:crypto';
import type pg from 'pg';
import { parsedOn, queryAfter } from './pipelined-query.ts';

/** Statements with more parameters than this vary in shape (batches) and are not worth naming. */
const MAX_NAMED_PARAMETERS = 64;
/** Statements whose result columns follow the table (`select *`) would break when a migration adds one. */
const UNSTABLE_SHAPE = /\b(select|returning)\s+\*|"[a-z_]+"\.\*/i;

/**
 * Text PostgreSQL can store: it refuses NUL in text ("invalid byte sequence for encoding UTF8:
 * 0x00"), and a lone UTF-16 surrogate has no UTF-8 form. NUL becomes U+2400 (the visible symbol
 * for NUL) and a lone surrogate U+FFFD, so output such as `/proc/1/cmdline` is kept, not refused.
 */
function storableText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\u2400') : wellFormed;
}

function storableValues(values: unknown[] | undefined): unknown[] | undefined {
  return values?.map((value) => (typeof value === 'string' ? storableText(value) : value));
}

/**
 * The statement that lets a transaction commit without waiting for its WAL flush (unit-of-work.ts).
 * It is sent with the transaction's `commit`, in one message, rather than as a round trip of its own.
 */
export const COMMIT_WITHOUT_FLUSH = "select set_config('synchronous_commit', 'off', true)";

/**
 * Makes the transaction's commit wait for its WAL flush after all (a signed audit checkpoint in a
 * commit that had asked not to): it cancels a held COMMIT_WITHOUT_FLUSH, which would otherwise be
 * sent last, with the commit, and win.
 */
export const COMMIT_WITH_FLUSH = "select set_config('synchronous_commit', 'on', true)";

/**
 * Statements without parameters or results worth waiting for, held and sent ahead of the next
 * statement in the same message (`pipelined-query.ts`): a transaction's `begin`, the savepoints
 * around a commit's rider.
 */
const SENT_AHEAD = /^(begin|savepoint \w+|release savepoint \w+)$/;

/**
 * Runs the store's frequent statements as named prepared statements on each PostgreSQL
 * connection, so the server parses and plans each one once per connection instead of every time.
 * Only DML of a stable shape is named; everything else runs as before.
 */
export function preparedStatementsPool(pool: pg.Pool): pg.Pool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    if (!/^\s*(insert|update|delete|select|with)\b/i.test(text) || UNSTABLE_SHAPE.test(text)) return undefined;
    let name = names.get(text);
    if (!name) {
      name = `opsgate_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      if (names.size < 5000) names.set(text, name);
    }
    return name;
  };
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    let commitWithoutFlush = false;
    /** Statements held to go ahead of the next one (`SENT_AHEAD`), in order. */
    const ahead: string[] = [];
    // One simple-protocol message of several statements; the caller (Kysely) reads the last one's result.
    const simple = (text: string) =>
      ahead.length === 0
        ? query(text)
        : query([...ahead.splice(0), text].join('; ')).then((results) => (Array.isArray(results) ? results.at(-1) : results));
    return new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver);
        return (text: unknown, raw?: unknown[]) => {
          if (text === COMMIT_WITHOUT_FLUSH) {
            commitWithoutFlush = true;
            return Promise.resolve({ command: 'SELECT', rowCount: 0, rows: [], fields: [] });
          }
          if (typeof text === 'string' && (raw?.length ?? 0) === 0 && SENT_AHEAD.test(text)) {
            ahead.push(text);
            return Promise.resolve({ command: text.split(' ', 1)[0]!.toUpperCase(), rowCount: null, rows: [], fields: [] });
          }
          if (text === COMMIT_WITH_FLUSH) commitWithoutFlush = false;
          if (commitWithoutFlush && (text === 'commit' || text === 'rollback')) {
            commitWithoutFlush = false;
            if (text === 'commit') return simple(`${COMMIT_WITHOUT_FLUSH}; commit`);
          }
          const values = storableValues(raw);
          const name = typeof text === 'string' && (values?.length ?? 0) <= MAX_NAMED_PARAMETERS ? nameOf(text) : undefined;
          if (typeof text === 'string' && !name && (values?.length ?? 0) === 0) return simple(text);
          // A named statement shares a pipeline with held ones only once it is parsed on this connection:
          // pg would take their ParseComplete for its own and never send its Parse again.
          if (typeof text === 'string' && ahead.length > 0 && (!name || parsedOn(target, name)))
            return queryAfter(target, ahead.splice(0), { name, text, values });
          const send = () => (name ? query({ name, text, values }) : values === undefined ? query(text) : query(text, values));
          return ahead.length > 0 ? query(ahead.splice(0).join('; ')).then(send) : send();
        };
      },
    });
  };
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'connect') return Reflect.get(target, property, receiver);
      return async () => {
        const client = await target.connect();
        // A checked-out client has no pool listener: when the server goes away mid-query, pg
        // emits 'error' on it as well as failing the query, which would kill the process.
        if (client.listenerCount('error') === 0) client.on('error', () => {});
        return wrap(client);
      };
    },
  });
}
