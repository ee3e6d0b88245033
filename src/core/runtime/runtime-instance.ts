import { hostname } from 'node:os';
import type { Selectable } from 'kysely';
import type { CoreDatabase, Store } from '../store/index.ts';

/** How long an instance may go without a heartbeat before others treat it as dead. Default 30 s. */
const DEFAULT_INSTANCE_STALE_MS = 30_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This process's lease in the store. Calls and turns record the instance that runs them; an
 * instance is dead when its heartbeat is stale, or at once when it ran on this host and its
 * process is gone (a kill -9 and a restart need not wait for the heartbeat to age).
 */
export class RuntimeInstance {
  readonly id: string;
  readonly #store: Store;
  readonly #now: () => Date;
  readonly #staleMs: number;
  readonly #host = hostname();

  constructor(store: Store, id: string, now: () => Date, staleMs = DEFAULT_INSTANCE_STALE_MS) {
    this.#store = store;
    this.id = id;
    this.#now = now;
    this.#staleMs = staleMs;
  }

  async register(): Promise<void> {
    const at = this.#now().toISOString();
    await this.#store.db
      .insertInto('runtime_instances')
      .values({ id: this.id, hostname: this.#host, pid: process.pid, started_at: at, heartbeat_at: at })
      .execute();
  }

  /**
   * Says this instance is alive and returns the instances alive now (this one included); dead ones'
   * rows are removed. On PostgreSQL the beat and the read are one statement (issue 32: each
   * statement outside a transaction is a transaction of its own, on every replica at every beat).
   */
  async beat(): Promise<Set<string>> {
    const at = this.#now().toISOString();
    if (this.#store.dialect === 'postgres') {
      const rows = await this.#store.db
        .with('beat', (db) => db.updateTable('runtime_instances').set({ heartbeat_at: at }).where('id', '=', this.id).returning('id'))
        .selectFrom('runtime_instances')
        .selectAll()
        .execute();
      return this.#aliveAmong(rows);
    }
    await this.#store.db.updateTable('runtime_instances').set({ heartbeat_at: at }).where('id', '=', this.id).execute();
    return this.aliveInstances();
  }

  async unregister(): Promise<void> {
    await this.#store.db.deleteFrom('runtime_instances').where('id', '=', this.id).execute();
  }

  /** The instances that are alive now (this one included). Dead ones' rows are removed. */
  async aliveInstances(): Promise<Set<string>> {
    return this.#aliveAmong(await this.#store.db.selectFrom('runtime_instances').selectAll().execute());
  }

  async #aliveAmong(rows: ReadonlyArray<Selectable<CoreDatabase['runtime_instances']>>): Promise<Set<string>> {
    const cutoff = new Date(this.#now().getTime() - this.#staleMs).toISOString();
    const alive = new Set<string>([this.id]);
    for (const row of rows) {
      if (row.id === this.id) continue;
      const dead = row.heartbeat_at < cutoff || (row.hostname === this.#host && !processAlive(row.pid));
      if (dead) await this.#store.db.deleteFrom('runtime_instances').where('id', '=', row.id).execute();
      else alive.add(row.id);
    }
    return alive;
  }
}
