import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.ts';
import { AuditLog } from './audit-log.ts';

/**
 * On SQLite the journal's ids are rowids (no AUTOINCREMENT since `core-100-fewer-pages`): once the
 * sealer has emptied the journal, the next row takes id 1 again. Nothing may depend on an id
 * outliving its row: the sealer chains in id order and deletes exactly the ids it read, in one
 * transaction, and a MAC does not cover the id.
 */
describe('journal ids reused after the sealer empties the journal (SQLite)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(dir: string): Promise<{ store: Store; audit: AuditLog }> {
    const store = await openStore({ sqlitePath: join(dir, 'opsgate.db'), databaseUrl: '' });
    const audit = new AuditLog(store, undefined, { sealDelayMs: 3_600_000 });
    return { store, audit };
  }

  const journalIds = async (store: Store) =>
    (await store.db.selectFrom('audit_pending').select('id').orderBy('id').execute()).map((row) => Number(row.id));

  it('chains every event once and in order, across seals and a restart, and the audit verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsgate-journal-ids-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let { store, audit } = await open(dir);
    const append = async (n: number) => audit.append({ sessionId: null, type: 'warning', actor: 'system', payload: { n } });

    for (const n of [1, 2, 3]) await append(n);
    const first = await journalIds(store);
    expect(await audit.seal()).toBe(3);
    expect(await journalIds(store)).toEqual([]);

    for (const n of [4, 5]) await append(n);
    const second = await journalIds(store);
    // The case this test is about: ids the sealed rows had are handed out again.
    expect(Math.min(...second)).toBeLessThanOrEqual(Math.max(...first));
    await append(6);
    // Closing seals what is left, so the restarted store starts on an empty journal again.
    await audit.close();
    await store.close();

    ({ store, audit } = await open(dir));
    cleanups.push(async () => {
      await audit.close();
      await store.close();
    });
    for (const n of [7, 8]) await append(n);
    const afterRestart = await journalIds(store);
    expect(afterRestart).toHaveLength(2);
    expect(Math.min(...afterRestart)).toBeLessThanOrEqual(Math.max(...second));

    const events = await audit.list();
    expect(events.map((event) => (event.payload as { n: number }).n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await audit.verify()).toMatchObject({ ok: true, checked: 8 });
  });
});
