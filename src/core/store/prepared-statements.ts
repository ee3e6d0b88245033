import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Statements with more parameters than this vary in shape (batches) and are not worth naming. */
const MAX_NAMED_PARAMETERS = 64;
/** Statements whose result columns follow the table (`select *`) would break when a migration adds one. */
const UNSTABLE_SHAPE = /\b(select|returning)\s+\*|"[a-z_]+"\.\*/i;

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
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    return new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver);
        return (text: unknown, values?: unknown[]) => {
          const name = typeof text === 'string' && (values?.length ?? 0) <= MAX_NAMED_PARAMETERS ? nameOf(text) : undefined;
          return name ? query({ name, text, values }) : values === undefined ? query(text) : query(text, values);
        };
      },
    });
  };
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'connect') return Reflect.get(target, property, receiver);
      return async () => wrap(await target.connect());
    },
  });
}
