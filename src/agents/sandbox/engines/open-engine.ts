import { existsSync } from 'node:fs';
import { SandboxErrors } from '../errors.ts';
import type { SandboxEngine } from './engine.ts';
import { SqliteSandboxEngine } from './sqlite-engine.ts';

/**
 * Opens the engine for a SQLite file (which must exist) or a PostgreSQL URL. `safeFunctions` names
 * (`schema.name`) the functions defined in a PostgreSQL database that an admin allows on the read path.
 */
export async function openSandboxEngine(
  target: { db: string } | { url: string; safeFunctions?: readonly string[] },
): Promise<SandboxEngine> {
  if ('url' in target) {
    const { PostgresSandboxEngine } = await import('./postgres-engine.ts');
    return PostgresSandboxEngine.connect(target.url, { safeFunctions: target.safeFunctions ?? [] });
  }
  if (!existsSync(target.db)) {
    throw SandboxErrors.SANDBOX_UNAVAILABLE({
      detail: `the database file ${target.db} does not exist; pass an existing SQLite file with --db`,
    });
  }
  return new SqliteSandboxEngine(target.db);
}
