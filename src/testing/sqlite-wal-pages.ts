import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/**
 * Counts the pages a SQLite file's commits write, from its write-ahead log (sqlite.org/walformat.html):
 * each frame is one 4 KB page of one commit, so the frames since the log was emptied are what those
 * commits wrote. A side connection empties the log (`reset`, a TRUNCATE checkpoint: call it with no
 * transaction open) and names the table or index each page belongs to (`dbstat`).
 */
export class SqliteWalPages {
  readonly #path: string;
  readonly #side: DatabaseSync;

  constructor(path: string) {
    this.#path = path;
    this.#side = new DatabaseSync(path);
  }

  /** Copies the log into the file and empties it. */
  reset(): void {
    this.#side.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** Pages written since the last reset, by the table or index (or `sqlite_schema`, page 1) that owns each. */
  byOwner(): Map<string, number> {
    const owners = new Map<number, string>();
    for (const row of this.#side.prepare('select name, pageno from dbstat').all() as Array<{ name: string; pageno: number }>)
      owners.set(row.pageno, row.name);
    const counts = new Map<string, number>();
    for (const page of this.#framePages()) {
      const owner = owners.get(page) ?? 'free';
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    return counts;
  }

  close(): void {
    this.#side.close();
  }

  /** The page number of each frame the current log holds (frames left from before a restart carry old salts). */
  #framePages(): number[] {
    const wal = readFileSync(`${this.#path}-wal`);
    if (wal.length < WAL_HEADER_BYTES) return [];
    const frameBytes = FRAME_HEADER_BYTES + wal.readUInt32BE(8);
    const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
    const pages: number[] = [];
    for (let offset = WAL_HEADER_BYTES; offset + frameBytes <= wal.length; offset += frameBytes) {
      if (wal.readUInt32BE(offset + 8) !== salts[0] || wal.readUInt32BE(offset + 12) !== salts[1]) break;
      pages.push(wal.readUInt32BE(offset));
    }
    return pages;
  }
}
