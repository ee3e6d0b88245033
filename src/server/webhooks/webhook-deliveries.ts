import type { Kysely } from 'kysely';
import type { Store, StoreMigration } from '../../core/store/index.ts';

/** One row per delivery of one event to one receiver. */
export interface WebhookDeliveriesTable {
  id: string;
  event: string;
  url: string;
  /** JSON body as sent. */
  body: string;
  /** `pending` → `delivered` | `failed` (after the last attempt). */
  status: string;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

interface WebhookDatabase {
  webhook_deliveries: WebhookDeliveriesTable;
}

export const webhookDeliveriesMigration: StoreMigration = {
  name: 'webhooks-001-deliveries',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created_at').execute();
  },
};

export type WebhookDelivery = WebhookDeliveriesTable;

/** The delivery log: each delivery is recorded when it starts and updated after every attempt. */
export class WebhookDeliveryLog {
  readonly #db: Kysely<WebhookDatabase>;

  constructor(store: Store) {
    this.#db = store.db as unknown as Kysely<WebhookDatabase>;
  }

  async start(row: Pick<WebhookDeliveriesTable, 'id' | 'event' | 'url' | 'body' | 'created_at'>): Promise<void> {
    await this.#db
      .insertInto('webhook_deliveries')
      .values({ ...row, status: 'pending', attempts: 0, response_status: null, last_error: null, finished_at: null })
      .execute();
  }

  async attempt(id: string, attempts: number, outcome: { responseStatus?: number; error?: string }): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({ attempts, response_status: outcome.responseStatus ?? null, last_error: outcome.error ?? null })
      .where('id', '=', id)
      .execute();
  }

  async finish(id: string, status: 'delivered' | 'failed', finishedAt: string): Promise<void> {
    await this.#db.updateTable('webhook_deliveries').set({ status, finished_at: finishedAt }).where('id', '=', id).execute();
  }

  /** Newest first. Default limit 100. */
  async list(limit = 100): Promise<WebhookDelivery[]> {
    return this.#db.selectFrom('webhook_deliveries').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
  }
}
