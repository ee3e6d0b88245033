import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The seed of the demo database (a small shop), shipped as SQL text. */
const DEMO_SEED_PATH = new URL('./seed.sql', import.meta.url);

/** Creates a SQLite file from the demo seed at `path` (if it does not exist yet) and returns the path. */
export function ensureDemoDatabase(path: string): string {
  if (existsSync(path)) return path;
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  const db = new DatabaseSync(partial);
  try {
    db.exec(readFileSync(DEMO_SEED_PATH, 'utf8'));
  } finally {
    db.close();
  }
  renameSync(partial, path);
  return path;
}

/** Where the demo database lives under the data dir. */
export function demoDatabasePath(dataDir: string): string {
  return join(dataDir, 'sandbox', 'demo.db');
}
