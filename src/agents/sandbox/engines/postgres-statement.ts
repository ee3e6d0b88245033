import { loadModule, parseSync } from 'libpg-query';
import { SandboxErrors, WriteOutsideTransactionError } from '../errors.ts';

/** A name as written in the statement: `schema` is '' when it was not qualified. */
export interface WrittenName {
  readonly schema: string;
  readonly name: string;
}

/** What the read path must know about one statement before it runs, read from PostgreSQL's own parse tree. */
export interface PostgresReadStatement {
  /** `select` runs through a cursor (row and byte budget); `explain` and `show` run as they are. */
  readonly kind: 'select' | 'explain' | 'show';
  readonly functions: readonly WrittenName[];
  readonly operators: readonly WrittenName[];
  /** Tables and views named: a view runs the functions of its query, a table its row security policies. */
  readonly relations: readonly WrittenName[];
  /** Types named in casts: a cast may call a function, a domain its CHECK constraints. */
  readonly types: readonly WrittenName[];
}

/**
 * Operators every statement may use implicitly (ORDER BY, GROUP BY, DISTINCT, IN, BETWEEN, joins):
 * a user-defined operator with one of these names is judged even where the text shows no operator.
 */
const IMPLICIT_OPERATORS = ['=', '<>', '<', '>', '<=', '>='];

/** Statement node names that change data or schema; the rest of the non-read kinds are refused as not allowed. */
const WRITE_STATEMENT =
  /^(Insert|Update|Delete|Merge|Truncate|Create|Alter|Drop|Rename|Grant|Comment|SecLabel|Reindex|Cluster|Refresh|Import)/;

let loading: Promise<void> | undefined;

/** Loads PostgreSQL's parser (WebAssembly) once per process; `inspectPostgresStatement` needs it. */
export function loadPostgresParser(): Promise<void> {
  loading ??= loadModule();
  return loading;
}

interface ParseTree {
  readonly stmts?: ReadonlyArray<{ readonly stmt: Record<string, unknown> }>;
}

/**
 * Parses one statement with PostgreSQL's own parser and decides whether its kind may run on the read
 * path: SELECT / VALUES / WITH (without data-modifying parts, `INTO` or row locks), `EXPLAIN` without
 * `ANALYZE` of such a read, and `SHOW`. Collects every function, operator, relation and cast type it
 * names, for the catalog check. Throws the typed refusal otherwise.
 */
export function inspectPostgresStatement(sql: string): PostgresReadStatement {
  let tree: ParseTree;
  try {
    tree = parseSync(sql) as ParseTree;
  } catch (error) {
    throw SandboxErrors.SQL_FAILED({ detail: error instanceof Error ? error.message : String(error) });
  }
  const statements = tree.stmts ?? [];
  if (statements.length === 0) throw SandboxErrors.SQL_EMPTY();
  if (statements.length > 1) throw SandboxErrors.SQL_MULTIPLE_STATEMENTS({ first: firstStatementText(sql) });
  const [nodeName, node] = onlyEntry(statements[0]!.stmt);
  const kind = readKind(nodeName, node);
  const names = collectNames(node);
  return { kind, ...names };
}

function readKind(nodeName: string, node: unknown): PostgresReadStatement['kind'] {
  if (nodeName === 'SelectStmt') {
    assertPlainRead(node);
    return 'select';
  }
  if (nodeName === 'ExplainStmt') {
    const explain = node as { query?: Record<string, unknown>; options?: unknown[] };
    if (explainAnalyzes(explain.options ?? [])) {
      throw SandboxErrors.SQL_NOT_ALLOWED({
        path: 'read',
        reason: 'EXPLAIN ANALYZE runs the statement; use EXPLAIN without ANALYZE to see the plan',
        action: 'EXPLAIN ANALYZE',
      });
    }
    const [innerName, inner] = onlyEntry(explain.query ?? {});
    if (innerName !== 'SelectStmt') throw notARead(innerName, 'EXPLAIN of ');
    assertPlainRead(inner);
    return 'explain';
  }
  if (nodeName === 'VariableShowStmt') return 'show';
  throw notARead(nodeName, '');
}

/** A SELECT that writes anyway: a data-modifying WITH, `SELECT … INTO` (creates a table), `FOR UPDATE` (row locks). */
function assertPlainRead(select: unknown): void {
  let found: string | undefined;
  visit(select, (key, value) => {
    if (found) return;
    if (/^(Insert|Update|Delete|Merge)Stmt$/.test(key)) found = key.replace('Stmt', '').toUpperCase();
    else if (key === 'intoClause' && value) found = 'SELECT INTO';
  });
  if (found) throw new WriteOutsideTransactionError(`This statement writes (${found}).`);
  visit(select, (key, value) => {
    if (!found && key === 'lockingClause' && Array.isArray(value) && value.length > 0) found = 'locks rows (FOR UPDATE / FOR SHARE)';
  });
  if (found) {
    throw SandboxErrors.SQL_NOT_ALLOWED({
      path: 'read',
      reason: `the statement ${found}, which only a transaction may do`,
      action: 'LOCK',
    });
  }
}

/** Any ANALYZE option refuses, even `ANALYZE false`: nobody needs it, and one rule is easier to trust. */
function explainAnalyzes(options: readonly unknown[]): boolean {
  return options.some((option) => (option as { DefElem?: { defname?: string } }).DefElem?.defname === 'analyze');
}

function notARead(nodeName: string, prefix: string): Error {
  const kind = nodeName
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
  if (WRITE_STATEMENT.test(nodeName)) return new WriteOutsideTransactionError(`This statement writes (${prefix}${kind}).`);
  return SandboxErrors.SQL_NOT_ALLOWED({
    path: 'read',
    reason: `${prefix}${kind} statements do not run on the read path (it runs SELECT, VALUES, WITH, EXPLAIN without ANALYZE and SHOW)`,
    action: kind,
  });
}

function collectNames(node: unknown): Omit<PostgresReadStatement, 'kind'> {
  const functions = new NameSet();
  const operators = new NameSet();
  const relations = new NameSet();
  const types = new NameSet();
  for (const name of IMPLICIT_OPERATORS) operators.add({ schema: '', name });
  visit(node, (key, value) => {
    const fields = value as Record<string, unknown>;
    if (key === 'FuncCall') functions.add(writtenName(fields.funcname));
    else if (key === 'A_Expr') operators.add(writtenName(fields.name));
    else if (key === 'RangeVar') relations.add({ schema: String(fields.schemaname ?? ''), name: String(fields.relname ?? '') });
    else if (key === 'TypeCast') types.add(writtenName((fields.typeName as { names?: unknown } | undefined)?.names));
  });
  return { functions: functions.values(), operators: operators.values(), relations: relations.values(), types: types.values() };
}

/** `[schema?, name]` string lists of the parse tree (`pg_catalog.int4`, `public.f`, `OPERATOR(public.===)`). */
function writtenName(parts: unknown): WrittenName {
  const strings = Array.isArray(parts) ? parts.map((part) => String((part as { String?: { sval?: string } }).String?.sval ?? '')) : [];
  const name = strings.at(-1) ?? '';
  return { schema: strings.length > 1 ? strings.at(-2)! : '', name };
}

class NameSet {
  readonly #names = new Map<string, WrittenName>();
  add(name: WrittenName): void {
    if (name.name) this.#names.set(`${name.schema}\u0000${name.name}`, name);
  }
  values(): WrittenName[] {
    return [...this.#names.values()];
  }
}

/** Calls `visitor` for every keyed value in the tree, depth first. */
function visit(node: unknown, visitor: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, visitor);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      visitor(key, value);
      visit(value, visitor);
    }
  }
}

function onlyEntry(node: Record<string, unknown>): [string, unknown] {
  const entry = Object.entries(node)[0];
  return entry ? [entry[0], entry[1]] : ['', undefined];
}

function firstStatementText(sql: string): string {
  const first = sql.split(';')[0]!.trim();
  return first.length > 60 ? `${first.slice(0, 57)}...` : first;
}
