import { sql } from 'kysely';
import type { CoreDatabase } from './schema.ts';
import { executeByShape, type ShapeDb } from './statement-shapes.ts';

/** A column and its value: what to set, or what the row must still hold. */
type ColumnValue<Table extends keyof CoreDatabase> = readonly [column: keyof CoreDatabase[Table] & string, value: unknown];

/**
 * Updates the one row of `table` that still holds every `where` value (its key and what the
 * writer read: a version, a status); false when the row moved on. For one row this plain
 * `update … where` costs SQLite less than the `update … from (values …)` join that changes many
 * rows in one statement, and the count of changed rows less than `returning` (SQLite collects
 * returned rows in a temporary table first; issue 32). Built once per table and columns.
 */
export async function updateOneRow<Table extends 'sessions' | 'tool_calls'>(
  db: ShapeDb,
  table: Table,
  set: readonly ColumnValue<Table>[],
  where: readonly ColumnValue<Table>[],
  options: { readonly bumpVersion?: boolean } = {},
): Promise<boolean> {
  const bump = options.bumpVersion === true;
  const shape = `update one ${table} set ${set.map(([column]) => column).join(',')}${bump ? ',version+1' : ''} where ${where.map(([column]) => column).join(',')}`;
  const parameters = [...set.map(([, value]) => value), ...where.map(([, value]) => value)];
  const result = await executeByShape(db, shape, parameters, () => {
    const assignments = set.map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    if (bump) assignments.push(sql`"version" = "version" + 1`);
    const conditions = where.map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    return sql`update ${sql.table(table)} set ${sql.join(assignments)} where ${sql.join(conditions, sql` and `)}`;
  });
  return result.numAffectedRows === 1n;
}
