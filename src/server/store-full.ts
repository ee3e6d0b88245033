const SQLITE_FULL = 13;

/** True when `error` (or a cause) says the SQLite file's disk is full: SQLITE_FULL or ENOSPC. */
export function isStoreFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 5; depth += 1) {
    const { code, errcode } = current as { code?: unknown; errcode?: unknown };
    if (errcode === SQLITE_FULL || code === 'ENOSPC') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
