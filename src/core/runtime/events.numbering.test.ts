import { afterAll, describe, expect, it } from 'vitest';
import { openStore, UnitOfWork } from '../store/index.ts';
import { SessionEvents } from './events.ts';

// A checkpoint numbers its session's events from the number this process remembers (no read of
// `max(seq)`, issue 32). A remembered number can go stale: these check that numbering stays
// gapless and unique when it does.
const statements: string[] = [];
const store = await openStore({ sqlitePath: ':memory:', databaseUrl: '', auditKey: '', onStatement: (sql) => statements.push(sql) });
afterAll(() => store.close());
const now = () => new Date('2026-11-27T13:00:00.000Z');

async function recordAndCommit(events: SessionEvents, sessionId: string, types: readonly string[]): Promise<void> {
  const uow = new UnitOfWork();
  for (const type of types) events.record(uow, sessionId, type, { type });
  await uow.commit(store);
}

async function storedNumbers(sessionId: string): Promise<Array<[number, string]>> {
  const rows = await store.db
    .selectFrom('session_events')
    .select(['seq', 'type'])
    .where('session_id', '=', sessionId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => [row.seq, row.type]);
}

const numberingReads = () => statements.filter((sql) => /max\(seq\)/i.test(sql)).length;

describe('session event numbers', () => {
  it('a session created here, and one whose last number a commit stored, are numbered without reading', async () => {
    const events = new SessionEvents(store, now);
    statements.length = 0;
    events.created('fresh');
    await recordAndCommit(events, 'fresh', ['status', 'message']);
    await recordAndCommit(events, 'fresh', ['interrupt']);
    expect(numberingReads()).toBe(0);
    expect(await storedNumbers('fresh')).toEqual([
      [1, 'status'],
      [2, 'message'],
      [3, 'interrupt'],
    ]);
  });

  it('a session this process has not written is numbered by reading once, then from memory', async () => {
    const writer = new SessionEvents(store, now);
    await recordAndCommit(writer, 'elsewhere', ['a', 'b']);
    const events = new SessionEvents(store, now);
    statements.length = 0;
    await recordAndCommit(events, 'elsewhere', ['c']);
    await recordAndCommit(events, 'elsewhere', ['d']);
    expect(numberingReads()).toBe(1);
    expect((await storedNumbers('elsewhere')).map(([seq]) => seq)).toEqual([1, 2, 3, 4]);
  });

  it('a number gone stale (another writer of the same file) collides, is forgotten, and the retry numbers by reading', async () => {
    const here = new SessionEvents(store, now);
    const other = new SessionEvents(store, now);
    here.created('shared');
    await recordAndCommit(here, 'shared', ['first']);
    await recordAndCommit(other, 'shared', ['other-1', 'other-2']);
    statements.length = 0;
    await recordAndCommit(here, 'shared', ['after']);
    // The stale number's insert collided and its transaction was rolled back and run again.
    expect(statements.filter((sql) => /^\s*rollback/i.test(sql))).toHaveLength(1);
    expect(numberingReads()).toBe(1);
    await recordAndCommit(here, 'shared', ['last']);
    expect(await storedNumbers('shared')).toEqual([
      [1, 'first'],
      [2, 'other-1'],
      [3, 'other-2'],
      [4, 'after'],
      [5, 'last'],
    ]);
  });

  it('an event published outside a unit of work does not make the next checkpoint collide', async () => {
    const events = new SessionEvents(store, now);
    events.created('streamed');
    await recordAndCommit(events, 'streamed', ['status']);
    await events.publish('streamed', 'text.delta', { text: 'hi' });
    statements.length = 0;
    await recordAndCommit(events, 'streamed', ['message']);
    expect(statements.filter((sql) => /^\s*rollback/i.test(sql))).toEqual([]);
    expect(await storedNumbers('streamed')).toEqual([
      [1, 'status'],
      [2, 'text.delta'],
      [3, 'message'],
    ]);
  });
});
