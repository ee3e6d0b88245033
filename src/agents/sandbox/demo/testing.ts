import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectInMemory, type SandboxConnection } from '../bridge/connect.ts';
import { DbBridge } from '../bridge/db-bridge.ts';
import { type SqliteEngineOptions, SqliteSandboxEngine } from '../engines/sqlite-engine.ts';
import { ensureDemoDatabase } from './index.ts';

/** A fresh copy of the demo database served over a real in-memory MCP hop, for tests and scripts. */
export interface SandboxFixture {
  readonly dir: string;
  readonly path: string;
  readonly engine: SqliteSandboxEngine;
  readonly connection: SandboxConnection;
  readonly bridge: DbBridge;
  /** sha256 over the database file and its -wal / -journal files as they are on disk. */
  fileHash(): string;
  dispose(): Promise<void>;
}

export function hashDatabaseFiles(path: string): string {
  const hash = createHash('sha256');
  for (const suffix of ['', '-wal', '-journal']) {
    const file = `${path}${suffix}`;
    hash.update(`${suffix}:`);
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

export async function createSandboxFixture(sessionId = 'sandbox-test', options: SqliteEngineOptions = {}): Promise<SandboxFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-sandbox-'));
  const path = ensureDemoDatabase(join(dir, 'demo.db'));
  const engine = new SqliteSandboxEngine(path, options);
  const connection = await connectInMemory(engine);
  const bridge = new DbBridge({ id: sessionId, channel: connection.channel }, path);
  return {
    dir,
    path,
    engine,
    connection,
    bridge,
    fileHash: () => hashDatabaseFiles(path),
    async dispose() {
      await connection.close();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
