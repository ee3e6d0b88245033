import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { COMMIT_WITH_FLUSH, COMMIT_WITHOUT_FLUSH, preparedStatementsPool } from './prepared-statements.ts';

/** A pool whose one client records the text of every query it is sent. */
function recordingPool(sent: string[]): pg.Pool {
  const client = {
    listenerCount: () => 1,
    on: () => client,
    query: async (query: string | { text: string }) => {
      sent.push(typeof query === 'string' ? query : query.text);
      return { command: 'SELECT', rowCount: 0, rows: [], fields: [] };
    },
  };
  return { connect: async () => client } as unknown as pg.Pool;
}

describe('a commit that skips its WAL flush (durableCommits)', () => {
  it('sends the setting with the commit, in one message, not as a round trip of its own', async () => {
    const sent: string[] = [];
    const client = await preparedStatementsPool(recordingPool(sent)).connect();
    await client.query('begin');
    await client.query(COMMIT_WITHOUT_FLUSH);
    await client.query('commit');
    expect(sent).toEqual([`begin; ${COMMIT_WITHOUT_FLUSH}; commit`]);
  });

  it('waits for its flush after all when the transaction asks for it later (a signed checkpoint riding on it)', async () => {
    const sent: string[] = [];
    const client = await preparedStatementsPool(recordingPool(sent)).connect();
    await client.query('begin');
    await client.query(COMMIT_WITHOUT_FLUSH);
    await client.query(COMMIT_WITH_FLUSH);
    await client.query('commit');
    expect(sent).toEqual(['begin', COMMIT_WITH_FLUSH, 'commit']);
  });
});

describe('statements sent ahead of the next one', () => {
  it('holds `begin` and the savepoints and sends them with the next statement, in order, in one message', async () => {
    const sent: string[] = [];
    const client = await preparedStatementsPool(recordingPool(sent)).connect();
    await client.query('begin', []);
    await client.query('savepoint commit_rider', []);
    await client.query('release savepoint commit_rider', []);
    await client.query('commit', []);
    expect(sent).toEqual(['begin; savepoint commit_rider; release savepoint commit_rider; commit']);
  });

  it('sends them on their own first when the next statement is not yet parsed on the connection', async () => {
    const sent: string[] = [];
    const client = await preparedStatementsPool(recordingPool(sent)).connect();
    await client.query('begin', []);
    await client.query('insert into "entries" ("id") values ($1)', [1]);
    expect(sent).toEqual(['begin', 'insert into "entries" ("id") values ($1)']);
  });

  it('holds nothing that takes parameters or is not one of them', async () => {
    const sent: string[] = [];
    const client = await preparedStatementsPool(recordingPool(sent)).connect();
    await client.query('rollback to savepoint commit_rider', []);
    await client.query('begin isolation level serializable', []);
    expect(sent).toEqual(['rollback to savepoint commit_rider', 'begin isolation level serializable']);
  });
});
