import { type Compilable, CompiledQuery, type Insertable, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { CoreDatabase } from './schema.ts';

/** What running a statement by its shape needs of a database or a transaction. */
export type ShapeDb = Pick<Kysely<CoreDatabase>, 'getExecutor' | 'executeQuery'>;

/**
 * Kysely builds a node for every value of a statement, freezes it and visits it to compile: for a
 * group commit's multi-row statements that is most of Kysely's CPU, paid again on every commit
 * (`bench:load-profile`, issue 32). A statement whose text depends only on its shape (which
 * statement, which columns, how many rows) is built and compiled once per shape and dialect; later
 * runs pass the new parameters with the kept text.
 */
const textsByAdapter = new WeakMap<object, Map<string, string>>();

/** Shapes kept per dialect at most (a row count up to the group size, per statement). */
const MAX_SHAPES = 4000;

function sameParameters(compiled: readonly unknown[], given: readonly unknown[]): boolean {
  return compiled.length === given.length && compiled.every((value, index) => Object.is(value, given[index]));
}

/**
 * Runs the statement named `shape` with `parameters`. The first time a shape is seen on a dialect,
 * `build` makes it and Kysely compiles it; its parameters must be `parameters`, in order (checked
 * then, so a shape key that misses what varies fails at once rather than running other SQL).
 */
export async function executeByShape<R>(
  db: ShapeDb,
  shape: string,
  parameters: readonly unknown[],
  build: () => Compilable<R> | RawBuilder<R>,
): Promise<QueryResult<R>> {
  const adapter = db.getExecutor().adapter;
  let texts = textsByAdapter.get(adapter);
  if (!texts) {
    texts = new Map();
    textsByAdapter.set(adapter, texts);
  }
  let text = texts.get(shape);
  if (text === undefined) {
    const built = build();
    const compiled = 'isRawBuilder' in built ? built.compile(db) : built.compile();
    if (!sameParameters(compiled.parameters, parameters))
      throw new Error(`statement shape "${shape}": the parameters given are not the ones it compiles to`);
    text = compiled.sql;
    if (texts.size < MAX_SHAPES) texts.set(shape, text);
  }
  return db.executeQuery(CompiledQuery.raw(text, [...parameters]) as CompiledQuery<R>);
}

/**
 * Inserts `rows` into `table` with one statement, every row giving a value (null included) for
 * each of `columns` and nothing else. Built by Kysely once per table, columns and row count.
 */
export async function insertRows<Table extends keyof CoreDatabase & string, Row extends Insertable<CoreDatabase[Table]>>(
  db: Kysely<CoreDatabase>,
  table: Table,
  columns: readonly (keyof Row & string)[],
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const parameters: unknown[] = [];
  for (const row of rows) {
    for (const column of columns) {
      const value = row[column];
      if (value === undefined) throw new Error(`insert into ${table}: no value for ${column}`);
      parameters.push(value);
    }
  }
  const picked = () => rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])) as Row);
  await executeByShape(db, `insert ${table} (${columns.join(',')}) × ${rows.length}`, parameters, () =>
    db.insertInto(table).values(picked()),
  );
}
