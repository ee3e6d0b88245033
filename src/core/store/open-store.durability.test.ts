import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './open-store.ts';

describe('which commits wait for their WAL flush (durableCommits)', () => {
  const saved = process.env.OPSGATE_DURABLE_COMMITS;
  afterEach(() => {
    if (saved === undefined) delete process.env.OPSGATE_DURABLE_COMMITS;
    else process.env.OPSGATE_DURABLE_COMMITS = saved;
  });

  it('is "effects" by default, "all" when OPSGATE_DURABLE_COMMITS says so, and the option wins over the environment', async () => {
    delete process.env.OPSGATE_DURABLE_COMMITS;
    const byDefault = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    expect(byDefault.durableCommits).toBe('effects');
    await byDefault.close();
    process.env.OPSGATE_DURABLE_COMMITS = 'all';
    const fromEnvironment = await openStore({ sqlitePath: ':memory:', databaseUrl: '' });
    expect(fromEnvironment.durableCommits).toBe('all');
    await fromEnvironment.close();
    const chosen = await openStore({ sqlitePath: ':memory:', databaseUrl: '', durableCommits: 'effects' });
    expect(chosen.durableCommits).toBe('effects');
    await chosen.close();
  });

  it('refuses an unknown value with CONFIG_INVALID naming the two it accepts', async () => {
    process.env.OPSGATE_DURABLE_COMMITS = 'some';
    await expect(openStore({ sqlitePath: ':memory:', databaseUrl: '' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/OPSGATE_DURABLE_COMMITS is "some"; use "effects".*or "all"/),
    });
  });
});
