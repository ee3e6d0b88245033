import { describe, expect, it } from 'vitest';
import { type CatalogFunction, judgeFunctions } from './postgres-function-policy.ts';

const builtIn = (name: string, volatility: CatalogFunction['volatility']): CatalogFunction => ({
  schema: 'pg_catalog',
  name,
  volatility,
  builtIn: true,
});
const defined = (name: string, volatility: CatalogFunction['volatility']): CatalogFunction => ({
  schema: 'public',
  name,
  volatility,
  builtIn: false,
});

describe('the PostgreSQL read path’s function allow-list', () => {
  it.each([
    builtIn('lower', 'i'),
    builtIn('current_setting', 's'),
    builtIn('now', 's'),
    builtIn('random', 'v'),
    builtIn('clock_timestamp', 'v'),
    builtIn('gen_random_uuid', 'v'),
  ])('runs the built-in $name ($volatility)', (fn) => {
    expect(judgeFunctions([fn])).toBeUndefined();
  });

  it.each([
    [builtIn('pg_advisory_lock', 'v'), /advisory lock/],
    [builtIn('pg_try_advisory_xact_lock_shared', 'v'), /advisory lock/],
    [builtIn('pg_notify', 'v'), /notification/],
    [builtIn('nextval', 'v'), /sequence/],
    [builtIn('lo_import', 'v'), /large object/],
    [builtIn('pg_terminate_backend', 'v'), /signals another session/],
    [builtIn('pg_reload_conf', 'v'), /reloads/],
    [builtIn('set_config', 'v'), /configuration setting/],
    [builtIn('txid_current', 's'), /transaction id/],
    [builtIn('pg_current_xact_id', 's'), /transaction id/],
    [builtIn('pg_read_file', 'v'), /files of the server/],
    [builtIn('table_to_xml', 's'), /given by name at run time/],
    [builtIn('schema_to_xml', 's'), /given by name at run time/],
    [builtIn('ts_rewrite', 'i'), /given as text/],
    [builtIn('pg_sleep', 'v'), /VOLATILE \(pg_proc\.provolatile = 'v'\)/],
    [defined('order_count', 'i'), /public\.order_count is defined in this database.*an admin can mark it safe/],
    [defined('dblink_exec', 'v'), /public\.dblink_exec is defined in this database/],
  ])('refuses %o and says why', (fn, reason) => {
    const refusal = judgeFunctions([builtIn('lower', 'i'), fn]);
    expect(refusal?.function).toBe(`${fn.schema}.${fn.name}`);
    expect(refusal?.reason).toMatch(reason);
  });

  it('runs a function defined in the database only when an admin marked it safe by its qualified name', () => {
    const fn = defined('order_count', 's');
    expect(judgeFunctions([fn], new Set(['public.order_count']))).toBeUndefined();
    expect(judgeFunctions([fn], new Set(['order_count']))).toBeDefined();
    expect(judgeFunctions([fn], new Set(['other.order_count']))).toBeDefined();
  });

  it('does not let the safe list re-admit a refused built-in', () => {
    expect(judgeFunctions([builtIn('pg_advisory_lock', 'v')], new Set(['pg_catalog.pg_advisory_lock']))).toBeDefined();
  });
});

describe('each refused built-in is refused by its name alone, whatever its volatility', () => {
  // The names are refused for their effect, even were the catalog to call them immutable; a name
  // that only contains one of them is judged by its volatility like any other function.
  it.each([
    ['pg_advisory_unlock_all', 'takes or releases an advisory lock, which can outlive the read on a pooled connection'],
    ['pg_try_advisory_lock', 'takes or releases an advisory lock, which can outlive the read on a pooled connection'],
    ['pg_notify', 'sends a notification to other sessions'],
    ['setval', 'reads or advances a sequence, which no transaction rolls back'],
    ['currval', 'reads or advances a sequence, which no transaction rolls back'],
    ['lastval', 'reads or advances a sequence, which no transaction rolls back'],
    ['lo_get', 'reads or writes a large object'],
    ['loread', 'reads or writes a large object'],
    ['lowrite', 'reads or writes a large object'],
    ['be_lo_unlink', 'reads or writes a large object'],
    ['pg_cancel_backend', 'signals another session'],
    ['pg_reload_conf', 'reloads the server configuration'],
    ['set_config', 'changes a configuration setting of the session'],
    ['setseed', 'changes the session’s random seed'],
    ['txid_current', 'assigns a transaction id, a write to the server’s transaction log'],
    ['pg_read_binary_file', 'reads files of the server'],
    ['pg_ls_dir', 'reads files of the server'],
    ['pg_stat_file', 'reads files of the server'],
    ['query_to_xml', 'runs a query over tables or views it is given by name at run time, which the read path cannot check beforehand'],
    ['cursor_to_xml', 'runs a query over tables or views it is given by name at run time, which the read path cannot check beforehand'],
    [
      'database_to_xmlschema',
      'runs a query over tables or views it is given by name at run time, which the read path cannot check beforehand',
    ],
    ['ts_stat', 'runs a query it is given as text, which the read path cannot check beforehand'],
  ])('%s', (name, effect) => {
    expect(judgeFunctions([builtIn(name, 'i')])).toEqual({
      function: `pg_catalog.${name}`,
      reason: `pg_catalog.${name} ${effect}; it runs only in a transaction, if at all`,
    });
  });

  it.each([
    'my_pg_advisory_lock',
    'pg_notify_all',
    'xpg_notify',
    'nextval_of',
    'my_setval',
    'blo_import',
    'loreader',
    'xlowrite',
    'pg_cancel_backend_x',
    'pg_reload_config',
    'set_configs',
    'xsetseed',
    'txid_current_snapshot',
    'my_pg_read_file',
    'xtable_to_xml',
    'ts_stats',
    'my_ts_rewrite',
    'lowriter',
    'my_pg_terminate_backend',
    'xpg_reload_conf',
    'my_set_config',
    'setseed2',
    'my_txid_current',
  ])('runs %s, which only looks like one of them, when it is not VOLATILE', (name) => {
    expect(judgeFunctions([builtIn(name, 's')])).toBeUndefined();
  });
});

describe('the volatility rule for the other built-ins', () => {
  it('runs IMMUTABLE and STABLE built-ins and the harmless VOLATILE ones, and refuses other VOLATILE ones, saying why', () => {
    for (const name of ['random_normal', 'timeofday', 'random', 'clock_timestamp', 'gen_random_uuid'])
      expect(judgeFunctions([builtIn(name, 'v')]), name).toBeUndefined();
    expect(judgeFunctions([builtIn('upper', 'i'), builtIn('now', 's')])).toBeUndefined();
    expect(judgeFunctions([builtIn('pg_sleep', 'v')])).toEqual({
      function: 'pg_catalog.pg_sleep',
      reason:
        "pg_catalog.pg_sleep is VOLATILE (pg_proc.provolatile = 'v'): it may change state, and it is not on the read path's list of volatile functions known to be harmless",
    });
  });

  it('names the first function refused, in the order the statement names them', () => {
    expect(judgeFunctions([builtIn('lower', 'i'), builtIn('pg_sleep', 'v'), builtIn('pg_notify', 'v')])?.function).toBe(
      'pg_catalog.pg_sleep',
    );
    expect(judgeFunctions([])).toBeUndefined();
  });

  it('says how a function defined in the database can be allowed', () => {
    expect(judgeFunctions([defined('order_count', 'i')])).toEqual({
      function: 'public.order_count',
      reason:
        "public.order_count is defined in this database, not built into PostgreSQL, so what it does is unknown; an admin can mark it safe (the sandbox's safeFunctions), or run it in a transaction",
    });
  });
});
