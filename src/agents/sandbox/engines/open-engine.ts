import { existsSync } from 'node:fs';
import { SandboxErrors } from '../errors.ts';
import type { SandboxEngine } from './engine.ts';
import { SqliteSandboxEngine } from './sqlite-engine.ts';

/** Opens the engine for a SQLite file (which must exist) or a PostgreSQL URL. */
export async function openSandboxEngine(target: { db: string } | { url: string }): Promise<SandboxEngine> {
  if ('url' in target) {
    const { PostgresSandboxEngine } = await import('./postgres-engine.ts');
    return PostgresSandboxEngine.connect(target.url);
  }
  if (!existsSync(target.db)) {
    throw SandboxErrors.SANDBOX_UNAVAILABLE({
      detail: `the database file ${target.db} does not exist; pass an existing SQLite file with --db`,
    });
  }
  return new SqliteSandboxEngine(target.db);
}
