import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Keeps the SQLite store private to the account running opsgate: the data dir 0700 (only when it
 * is opsgate's own data dir, never a folder a caller named), the database file 0600 before SQLite
 * opens it, and its `-wal` / `-shm` 0600 (SQLite gives them the database file's mode when it
 * creates them; files an older version left behind are tightened here).
 */
export function makeSqliteFilesPrivate(path: string, ownsDirectory: boolean): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ownsDirectory) chmodSync(dir, 0o700);
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}
