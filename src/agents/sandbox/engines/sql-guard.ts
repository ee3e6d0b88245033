import { constants, type DatabaseSync, type StatementSync } from 'node:sqlite';
import { OpsgateError } from '../../../core/errors/index.ts';
import { SandboxErrors, WriteOutsideTransactionError } from '../errors.ts';

/**
 * Pure, side-effect free SQL functions a statement may call. Anything else (load_extension,
 * fts3_tokenizer, functions an extension might add) is refused by the authorizer.
 */
const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set(
  (
    'abs avg count coalesce ifnull iif if instr length octet_length lower upper ltrim rtrim trim max min nullif printf format quote ' +
    'replace round substr substring sum total typeof unicode char hex unhex group_concat string_agg concat concat_ws ' +
    'date time datetime julianday strftime unixepoch timediff like glob random randomblob zeroblob sqlite_version changes ' +
    'total_changes last_insert_rowid likelihood likely unlikely median percentile ' +
    'row_number rank dense_rank ntile lag lead first_value last_value nth_value percent_rank cume_dist ' +
    'acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10 log2 mod pi pow power radians sign sin sinh sqrt tan tanh trunc ' +
    'json json_array json_array_length json_extract json_insert json_object json_patch json_remove json_replace json_set json_type json_valid ' +
    'json_quote json_group_array json_group_object json_each json_tree jsonb json_error_position json_pretty ' +
    // `->` and `->>` are the JSON operators; the two sqlite_ functions report how the library was built.
    '-> ->> sqlite_source_id sqlite_compileoption_used sqlite_compileoption_get'
  ).split(' '),
);

/**
 * Pragmas that only read the schema or inspect the file, with any argument (a table name, a check
 * limit); every pragma not listed here or in `QUERY_ONLY_PRAGMAS` (writable_schema, …) is refused.
 */
const READ_ONLY_PRAGMAS: ReadonlySet<string> = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_list',
  'index_info',
  'index_xinfo',
  'foreign_key_list',
  'collation_list',
  'integrity_check',
  'quick_check',
  'foreign_key_check',
  'page_count',
  'freelist_count',
  'compile_options',
  'database_list',
]);

/** Pragmas that read a setting without an argument and change it with one (`PRAGMA user_version = 3`). */
const QUERY_ONLY_PRAGMAS: ReadonlySet<string> = new Set(['page_size', 'user_version', 'journal_mode']);

/** Statement kinds the read path runs; the first keyword decides, whatever the statement would touch. */
const READ_KINDS = new Set(['SELECT', 'WITH', 'VALUES', 'PRAGMA', 'EXPLAIN']);
/** Kinds that change data or schema, even when this statement would change nothing (`DROP TABLE IF EXISTS nope`). */
const WRITE_KINDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'UPSERT', 'CREATE', 'DROP', 'ALTER']);

const C = constants;
const actionNames = new Map<number, string>(
  Object.entries(C)
    .filter(
      ([key]) =>
        key.startsWith('SQLITE_') && !key.startsWith('SQLITE_CHANGESET') && !['SQLITE_OK', 'SQLITE_DENY', 'SQLITE_IGNORE'].includes(key),
    )
    .map(([key, value]) => [value as number, key.slice('SQLITE_'.length)]),
);

const DATA_WRITES = new Set([C.SQLITE_INSERT, C.SQLITE_UPDATE, C.SQLITE_DELETE]);
const SCHEMA_WRITES = new Set([
  C.SQLITE_CREATE_INDEX,
  C.SQLITE_CREATE_TABLE,
  C.SQLITE_CREATE_TRIGGER,
  C.SQLITE_CREATE_VIEW,
  C.SQLITE_DROP_INDEX,
  C.SQLITE_DROP_TABLE,
  C.SQLITE_DROP_TRIGGER,
  C.SQLITE_DROP_VIEW,
  C.SQLITE_ALTER_TABLE,
]);
const TEMP_OBJECTS = new Set([
  C.SQLITE_CREATE_TEMP_INDEX,
  C.SQLITE_CREATE_TEMP_TABLE,
  C.SQLITE_CREATE_TEMP_TRIGGER,
  C.SQLITE_CREATE_TEMP_VIEW,
  C.SQLITE_DROP_TEMP_INDEX,
  C.SQLITE_DROP_TEMP_TABLE,
  C.SQLITE_DROP_TEMP_TRIGGER,
  C.SQLITE_DROP_TEMP_VIEW,
]);

export type GuardPath = 'read' | 'transaction';

/** Why the authorizer refused a statement; `write` means the statement would change data or schema. */
export interface Denial {
  readonly action: string;
  readonly target: string;
  readonly write: boolean;
  readonly reason: string;
}

/**
 * The authorizer of one connection: an allowlist of actions. The read path admits SELECT, READ,
 * RECURSIVE, pure functions and schema-reading pragmas. The transaction path adds data and
 * schema writes of the main database, and nothing that ends the transaction or reaches another
 * file (TRANSACTION, SAVEPOINT, ATTACH, DETACH, other pragmas, VACUUM INTO, ANALYZE, virtual tables).
 */
export class SqlAuthorizer {
  readonly path: GuardPath;
  /** Set while the bridge itself issues BEGIN / COMMIT / ROLLBACK. */
  #control = false;
  #denial: Denial | undefined;

  constructor(path: GuardPath) {
    this.path = path;
  }

  install(db: DatabaseSync): void {
    db.setAuthorizer((action, arg1, arg2, dbName) => this.#decide(action, arg1, arg2, dbName));
  }

  /** Runs `work` with transaction control allowed: the engine's own BEGIN/COMMIT/ROLLBACK and the session extension's savepoint. */
  control<T>(work: () => T): T {
    this.#control = true;
    try {
      return work();
    } finally {
      this.#control = false;
    }
  }

  /** Prepares exactly one statement under this authorizer; throws a typed refusal otherwise. */
  prepare(db: DatabaseSync, sql: string): StatementSync {
    this.#denial = undefined;
    let statement: StatementSync;
    try {
      statement = db.prepare(sql);
    } catch (error) {
      const denial = this.#denial as Denial | undefined;
      if (denial) throw refusal(this.path, denial);
      const message = error instanceof Error ? error.message : String(error);
      if (/contains no statements/.test(message)) throw SandboxErrors.SQL_EMPTY();
      throw SandboxErrors.SQL_FAILED({ detail: message }, { cause: error });
    }
    assertSingleStatement(sql, statement.sourceSQL);
    if (this.path === 'read') assertReadKind(statement.sourceSQL);
    return statement;
  }

  /**
   * Runs a prepared statement. SQLite authorizes some statements (VACUUM, VACUUM INTO) only while
   * they run, so a denial during the run is a refusal too, not a plain failure.
   */
  run<T>(work: () => T): T {
    this.#denial = undefined;
    try {
      return work();
    } catch (error) {
      const denial = this.#denial as Denial | undefined;
      if (denial) throw refusal(this.path, denial);
      if (OpsgateError.isInstance(error)) throw error;
      throw SandboxErrors.SQL_FAILED({ detail: error instanceof Error ? error.message : String(error) }, { cause: error });
    }
  }

  #decide(action: number, arg1: string | null, arg2: string | null, dbName: string | null): number {
    if (this.#allows(action, arg1, arg2, dbName)) return C.SQLITE_OK;
    if (!this.#denial) this.#denial = describeDenial(action, arg1, arg2);
    return C.SQLITE_DENY;
  }

  #allows(action: number, arg1: string | null, arg2: string | null, dbName: string | null): boolean {
    switch (action) {
      case C.SQLITE_SELECT:
      case C.SQLITE_READ:
      case C.SQLITE_RECURSIVE:
        return true;
      case C.SQLITE_FUNCTION:
        return arg2 !== null && ALLOWED_FUNCTIONS.has(arg2.toLowerCase());
      case C.SQLITE_PRAGMA: {
        const pragma = arg1?.toLowerCase() ?? '';
        return READ_ONLY_PRAGMAS.has(pragma) || (QUERY_ONLY_PRAGMAS.has(pragma) && arg2 === null);
      }
      case C.SQLITE_TRANSACTION:
      case C.SQLITE_SAVEPOINT:
        return this.#control;
      case C.SQLITE_ALTER_TABLE:
        if (this.path === 'read') return false;
        // SQLite names the database of an ALTER TABLE in the first argument and leaves `dbName` null.
        // Stryker disable next-line all: no other database can hold a table here (CREATE TEMP and ATTACH are refused); the name check is defence in depth
        return arg1 === 'main';
      case C.SQLITE_REINDEX:
        // CREATE INDEX fills the new index through a REINDEX of it.
        if (this.path === 'read') return false;
        // Stryker disable next-line all: as for ALTER TABLE, no index of another database can exist here
        return dbName === 'main';
      default:
        if (this.path === 'read') return false;
        if (DATA_WRITES.has(action)) return dbName === 'main';
        if (SCHEMA_WRITES.has(action)) return dbName === 'main';
        return false;
    }
  }
}

function describeDenial(action: number, arg1: string | null, arg2: string | null): Denial {
  const name = actionNames.get(action) ?? `action ${action}`;
  const target = [arg1, arg2].filter((part) => part !== null && part !== '').join(' ');
  const write = DATA_WRITES.has(action) || SCHEMA_WRITES.has(action);
  let reason: string;
  if (action === C.SQLITE_TRANSACTION || action === C.SQLITE_SAVEPOINT) {
    reason = `${name} ${target} is reserved to the transaction handle`.trim();
  } else if (action === C.SQLITE_FUNCTION) {
    reason = `the function ${arg2} is not on the allowlist of pure functions`;
  } else if (action === C.SQLITE_PRAGMA) {
    reason = `PRAGMA ${arg1}${arg2 === null ? '' : `=${arg2}`} is not a schema-reading pragma`;
  } else if (TEMP_OBJECTS.has(action)) {
    reason = `${name} ${target} would create or drop a temporary object (it could shadow a table)`;
  } else if (action === C.SQLITE_ATTACH || action === C.SQLITE_DETACH) {
    reason = `${name} ${target} would reach another database file (ATTACH and VACUUM INTO are refused)`;
  } else {
    reason = `${name} ${target}`.trim() + (write ? ' would change the database' : ' is not allowed');
  }
  return { action: name, target, write, reason };
}

function refusal(path: GuardPath, denial: Denial): Error {
  if (path === 'read' && denial.write) {
    return new WriteOutsideTransactionError(`This statement writes (${denial.action} ${denial.target}).`);
  }
  return SandboxErrors.SQL_NOT_ALLOWED({ path, reason: denial.reason, action: denial.action });
}

/** The first keyword of a statement, upper-cased, after leading whitespace and comments. */
export function statementKind(sql: string): string {
  let index = 0;
  while (index < sql.length) {
    if (/\s|;/.test(sql[index]!)) index += 1;
    else if (sql.startsWith('--', index)) {
      const end = sql.indexOf('\n', index);
      index = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', index)) {
      const end = sql.indexOf('*/', index + 2);
      index = end === -1 ? sql.length : end + 2;
    } else break;
  }
  return (/^[A-Za-z]+/.exec(sql.slice(index))?.[0] ?? '').toUpperCase();
}

/**
 * The read path runs reads by kind, not only by what the authorizer sees: `DROP TABLE IF EXISTS x`
 * on a missing table compiles to no write at all, yet it is a write statement and is refused as one.
 */
function assertReadKind(sourceSQL: string): void {
  const kind = statementKind(sourceSQL);
  if (READ_KINDS.has(kind)) return;
  if (WRITE_KINDS.has(kind)) throw new WriteOutsideTransactionError(`This statement writes (${kind}).`);
  throw SandboxErrors.SQL_NOT_ALLOWED({ path: 'read', reason: `${kind || 'this'} statements do not run on the read path`, action: kind });
}

/**
 * SQLite compiles only the first statement of a string and ignores the rest. `sourceSQL` is the
 * text it compiled; what follows it may hold only whitespace, comments and semicolons.
 */
export function assertSingleStatement(sql: string, sourceSQL: string): void {
  if (!sql.startsWith(sourceSQL)) throw SandboxErrors.SQL_FAILED({ detail: 'the compiled text does not match the given text' });
  const tail = sql.slice(sourceSQL.length);
  if (!isOnlyTrivia(tail)) {
    const first = sourceSQL.trim();
    throw SandboxErrors.SQL_MULTIPLE_STATEMENTS({ first: first.length > 60 ? `${first.slice(0, 57)}...` : first });
  }
}

/** True when the text holds only whitespace, `-- …` and `/* … *\/` comments, and semicolons. */
export function isOnlyTrivia(text: string): boolean {
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === ';' || /\s/.test(char)) {
      index += 1;
    } else if (text.startsWith('--', index)) {
      const end = text.indexOf('\n', index);
      index = end === -1 ? text.length : end + 1;
    } else if (text.startsWith('/*', index)) {
      const end = text.indexOf('*/', index + 2);
      // SQLite accepts an unterminated block comment at the end of the text.
      index = end === -1 ? text.length : end + 2;
    } else {
      return false;
    }
  }
  return true;
}
