import type pg from 'pg';
import type { CatalogFunction } from './postgres-function-policy.ts';
import type { PostgresReadStatement, WrittenName } from './postgres-statement.ts';

/**
 * Every function a read could run, found in the catalog in one round trip: the functions and the
 * operators' functions the statement names (every overload in the named schema, or on the search
 * path when unqualified), and, through `pg_depend`, the functions behind the relations and types it
 * names — a view's query (and the views it reads, recursively), a table's row security policies, a
 * domain's CHECK constraints, the casts from a type named and into a user-made type
 * named, the user-made casts from a column's type. Overloads count all at once: when one `f` is
 * unsafe, `f(…)` is refused whichever the call resolves to.
 */
const REACHABLE_FUNCTIONS = `
WITH RECURSIVE
  path AS (SELECT n.oid FROM pg_namespace n WHERE n.nspname = ANY (current_schemas(true))),
  written(kind, schema, name) AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[])),
  named_namespace AS (
    SELECT w.kind, w.name, n.oid AS namespace FROM written w JOIN pg_namespace n ON n.nspname = w.schema WHERE w.schema <> ''
    UNION ALL
    SELECT w.kind, w.name, p.oid FROM written w CROSS JOIN path p WHERE w.schema = ''
  ),
  objects(classid, objid) AS (
    SELECT 'pg_proc'::regclass::oid, p.oid FROM named_namespace w JOIN pg_proc p ON w.kind = 'f' AND p.proname = w.name AND p.pronamespace = w.namespace
    UNION
    SELECT 'pg_operator'::regclass::oid, o.oid FROM named_namespace w JOIN pg_operator o ON w.kind = 'o' AND o.oprname = w.name AND o.oprnamespace = w.namespace AND o.oid::int8 >= 16384
    UNION
    SELECT 'pg_class'::regclass::oid, c.oid FROM named_namespace w JOIN pg_class c ON w.kind = 'r' AND c.relname = w.name AND c.relnamespace = w.namespace
    UNION
    SELECT 'pg_type'::regclass::oid, t.oid FROM named_namespace w JOIN pg_type t ON w.kind = 't' AND t.typname = w.name AND t.typnamespace = w.namespace
    UNION
    SELECT next.classid, next.objid
      FROM objects o
      JOIN LATERAL (
        SELECT d.refclassid AS classid, d.refobjid AS objid
          FROM (
            SELECT 'pg_rewrite'::regclass::oid AS classid, r.oid AS objid FROM pg_rewrite r WHERE o.classid = 'pg_class'::regclass AND r.ev_class = o.objid
            UNION ALL
            SELECT 'pg_policy'::regclass::oid, p.oid FROM pg_policy p WHERE o.classid = 'pg_class'::regclass AND p.polrelid = o.objid
            UNION ALL
            SELECT 'pg_constraint'::regclass::oid, k.oid FROM pg_constraint k WHERE o.classid = 'pg_type'::regclass AND k.contypid = o.objid
            UNION ALL
            -- A user-made type's own dependencies: a range's subtype_diff (the planner calls it), a domain's base.
            SELECT 'pg_type'::regclass::oid, o.objid WHERE o.classid = 'pg_type'::regclass AND o.objid::int8 >= 16384
            UNION ALL
            SELECT 'pg_cast'::regclass::oid, k.oid FROM pg_cast k
             WHERE o.classid = 'pg_type'::regclass
               -- Into a built-in type (x::int) only the source decides, and it is judged where it is named.
               AND (k.castsource = o.objid OR (k.casttarget = o.objid AND o.objid::int8 >= 16384))
          ) owned
          JOIN pg_depend d ON d.classid = owned.classid AND d.objid = owned.objid
         WHERE d.refclassid IN ('pg_class'::regclass, 'pg_type'::regclass, 'pg_proc'::regclass, 'pg_operator'::regclass)
        UNION ALL
        -- A column's type brings the casts from it that a user created (oid past initdb's), which
        -- PostgreSQL may apply to the column without a word in the text.
        SELECT 'pg_proc'::regclass::oid, k.castfunc FROM pg_attribute a JOIN pg_cast k ON k.castsource = a.atttypid
         WHERE o.classid = 'pg_class'::regclass AND a.attrelid = o.objid AND a.attnum > 0 AND NOT a.attisdropped
           AND k.castfunc <> 0 AND k.oid::int8 >= 16384
        UNION ALL
        SELECT 'pg_type'::regclass::oid, a.atttypid FROM pg_attribute a
         WHERE o.classid = 'pg_class'::regclass AND a.attrelid = o.objid AND a.attnum > 0 AND NOT a.attisdropped
           AND a.atttypid::int8 >= 16384
      ) next ON true
  ),
  functions AS (
    SELECT objid AS oid FROM objects WHERE classid = 'pg_proc'::regclass
    UNION
    SELECT o.oprcode FROM objects x JOIN pg_operator o ON x.classid = 'pg_operator'::regclass AND o.oid = x.objid
  )
SELECT n.nspname AS schema, p.proname AS name, p.provolatile AS volatility,
       -- CREATE TYPE … AS RANGE makes constructors for the range and its multirange: PostgreSQL's own C
       -- code (language internal, which no non-superuser can use), so they count as built in.
       p.oid::int8 < 16384 OR (l.lanname = 'internal' AND p.prosrc ~ '^(range|multirange)_constructor[0-3]$') AS "builtIn"
  FROM functions f JOIN pg_proc p ON p.oid = f.oid JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
 ORDER BY p.oid`;

/** The lookup is prepared once per connection under this name; the read path's reset keeps it. */
export const CATALOG_STATEMENT = 'opsgate_reachable_functions';

/** Runs the lookup on the read's own connection (inside its read-only transaction, so it sees the same search path). */
export async function reachableFunctions(client: pg.PoolClient, statement: PostgresReadStatement): Promise<CatalogFunction[]> {
  const written: Array<[string, WrittenName]> = [
    ...statement.functions.map((name): [string, WrittenName] => ['f', name]),
    ...statement.operators.map((name): [string, WrittenName] => ['o', name]),
    ...statement.relations.map((name): [string, WrittenName] => ['r', name]),
    ...statement.types.map((name): [string, WrittenName] => ['t', name]),
  ];
  const { rows } = await client.query<CatalogFunction>({
    name: CATALOG_STATEMENT,
    text: REACHABLE_FUNCTIONS,
    values: [written.map(([kind]) => kind), written.map(([, name]) => name.schema), written.map(([, name]) => name.name)],
  });
  return rows;
}
