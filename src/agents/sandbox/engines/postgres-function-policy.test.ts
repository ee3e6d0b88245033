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
