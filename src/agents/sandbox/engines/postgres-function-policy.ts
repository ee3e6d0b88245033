/** One function as PostgreSQL's catalog describes it (`pg_proc`). */
export interface CatalogFunction {
  readonly schema: string;
  readonly name: string;
  /** `pg_proc.provolatile`: i(mmutable), s(table), v(olatile). */
  readonly volatility: 'i' | 's' | 'v';
  /** Created by initdb (oid below 16384, FirstNormalObjectId): PostgreSQL's own, not a user's or an extension's. */
  readonly builtIn: boolean;
}

/** Why a function may not run on the read path, and what to do instead. */
export interface FunctionRefusal {
  readonly function: string;
  readonly reason: string;
}

/**
 * Built-in functions refused whatever their volatility, with the effect that makes them unsafe. Most
 * are VOLATILE and would be refused anyway; the named reason tells the person what was found.
 */
const REFUSED_BUILT_INS: ReadonlyArray<[RegExp, string]> = [
  [/^pg_(try_)?advisory_/, 'takes or releases an advisory lock, which can outlive the read on a pooled connection'],
  [/^pg_notify$/, 'sends a notification to other sessions'],
  [/^(nextval|setval|currval|lastval)$/, 'reads or advances a sequence, which no transaction rolls back'],
  [/^(lo_|loread$|lowrite$|be_lo_)/, 'reads or writes a large object'],
  [/^pg_(terminate|cancel)_backend$/, 'signals another session'],
  [/^pg_reload_conf$/, 'reloads the server configuration'],
  [/^set_config$/, 'changes a configuration setting of the session'],
  [/^setseed$/, 'changes the session’s random seed'],
  [/^(txid_current|pg_current_xact_id)$/, 'assigns a transaction id, a write to the server’s transaction log'],
  [/^pg_(read_file|read_binary_file|ls_|stat_file)/, 'reads files of the server'],
  [
    /^(table|schema|database|query|cursor)_to_xml/,
    'runs a query over tables or views it is given by name at run time, which the read path cannot check beforehand',
  ],
  [/^ts_(stat|rewrite)$/, 'runs a query it is given as text, which the read path cannot check beforehand'],
];

/** VOLATILE built-ins that only produce a value: randomness and the clock. */
const SAFE_VOLATILE_BUILT_INS: ReadonlySet<string> = new Set([
  'random',
  'random_normal',
  'clock_timestamp',
  'timeofday',
  'gen_random_uuid',
]);

/**
 * The allow-list of the PostgreSQL read path, decided from the catalog: a built-in IMMUTABLE or
 * STABLE function runs (stable functions may read the database, never write it), a VOLATILE one only
 * if it is on the short list above; a function created in the database (by a user or an extension
 * such as dblink) only if an admin listed it as `schema.name` in `safeFunctions`. Returns the first
 * refusal, or undefined when every function may run.
 */
export function judgeFunctions(
  functions: readonly CatalogFunction[],
  safeFunctions: ReadonlySet<string> = new Set(),
): FunctionRefusal | undefined {
  for (const fn of functions) {
    const refusal = judgeFunction(fn, safeFunctions);
    if (refusal) return refusal;
  }
  return undefined;
}

function judgeFunction(fn: CatalogFunction, safeFunctions: ReadonlySet<string>): FunctionRefusal | undefined {
  const qualified = `${fn.schema}.${fn.name}`;
  if (!fn.builtIn) {
    if (safeFunctions.has(qualified)) return undefined;
    return {
      function: qualified,
      reason: `${qualified} is defined in this database, not built into PostgreSQL, so what it does is unknown; an admin can mark it safe (the sandbox's safeFunctions), or run it in a transaction`,
    };
  }
  for (const [pattern, effect] of REFUSED_BUILT_INS) {
    if (pattern.test(fn.name)) return { function: qualified, reason: `${qualified} ${effect}; it runs only in a transaction, if at all` };
  }
  if (fn.volatility !== 'v' || SAFE_VOLATILE_BUILT_INS.has(fn.name)) return undefined;
  return {
    function: qualified,
    reason: `${qualified} is VOLATILE (pg_proc.provolatile = 'v'): it may change state, and it is not on the read path's list of volatile functions known to be harmless`,
  };
}
