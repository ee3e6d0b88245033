import type { Kysely } from 'kysely';
import type { Store, StoreMigration } from '../../core/store/index.ts';

/** Where approval requests go in Slack, and the app's credentials (never sent to a browser). */
export interface SlackSettings {
  readonly botToken: string;
  readonly signingSecret: string;
  /** A channel id (`C…`) to post every request to; empty: each eligible approver's direct messages. */
  readonly channel: string;
}

/** A Teams channel's incoming webhook. */
export interface TeamsSettings {
  readonly webhookUrl: string;
}

/** Settings shared by the chat integrations. */
export interface ChatCommonSettings {
  /** The address people open opsgate at (links in messages), e.g. `https://opsgate.example.com`. */
  readonly publicUrl: string;
}

interface ChatIntegrationsTable {
  /** `slack`, `teams` or `common`. */
  name: string;
  /** JSON settings. */
  settings: string;
  updated_at: string;
}

/** An opsgate user's chat account: an explicit Slack member id, or an e-mail Slack must have verified. */
interface ChatUserLinksTable {
  user_id: number;
  provider: string;
  external_id: string | null;
  email: string | null;
  created_at: string;
}

/** The message that asked for one approval, so it can be updated with the decision. */
interface ChatApprovalMessagesTable {
  call_id: string;
  provider: string;
  channel: string;
  ts: string;
  session_id: string;
  /** The readable preview the message showed (JSON), to show again when it is updated. */
  digest: string;
}

interface ChatDatabase {
  chat_integrations: ChatIntegrationsTable;
  chat_user_links: ChatUserLinksTable;
  chat_approval_messages: ChatApprovalMessagesTable;
}

export const chatIntegrationsMigration: StoreMigration = {
  name: 'core-020-chat-integrations',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('chat_integrations')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('chat_user_links')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text')
      .addColumn('email', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('chat_user_links_pk', ['user_id', 'provider'])
      .execute();
    await db.schema
      .createTable('chat_approval_messages')
      .addColumn('call_id', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('ts', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('chat_approval_messages_call').on('chat_approval_messages').columns(['call_id', 'provider']).execute();
  },
};

export interface ChatUserLink {
  readonly userId: number;
  readonly externalId?: string;
  readonly email?: string;
}

/** Settings, user links and posted messages of the chat integrations. */
export class ChatIntegrationStore {
  readonly #db: Kysely<ChatDatabase>;
  readonly #now: () => Date;

  constructor(store: Store, now: () => Date = () => new Date()) {
    this.#db = store.db as unknown as Kysely<ChatDatabase>;
    this.#now = now;
  }

  async settings<T>(name: 'slack' | 'teams' | 'common'): Promise<T | undefined> {
    const row = await this.#db.selectFrom('chat_integrations').select('settings').where('name', '=', name).executeTakeFirst();
    return row ? (JSON.parse(row.settings) as T) : undefined;
  }

  async saveSettings(name: 'slack' | 'teams' | 'common', settings: object | undefined): Promise<void> {
    if (!settings) {
      await this.#db.deleteFrom('chat_integrations').where('name', '=', name).execute();
      return;
    }
    const row = { name, settings: JSON.stringify(settings), updated_at: this.#now().toISOString() };
    await this.#db
      .insertInto('chat_integrations')
      .values(row)
      .onConflict((oc) => oc.column('name').doUpdateSet({ settings: row.settings, updated_at: row.updated_at }))
      .execute();
  }

  async links(provider: string): Promise<ChatUserLink[]> {
    const rows = await this.#db.selectFrom('chat_user_links').selectAll().where('provider', '=', provider).execute();
    return rows.map((row) => ({
      userId: Number(row.user_id),
      ...(row.external_id ? { externalId: row.external_id } : {}),
      ...(row.email ? { email: row.email } : {}),
    }));
  }

  async link(provider: string, userId: number, account: { externalId?: string; email?: string }): Promise<void> {
    await this.#db.deleteFrom('chat_user_links').where('provider', '=', provider).where('user_id', '=', userId).execute();
    if (!account.externalId && !account.email) return;
    await this.#db
      .insertInto('chat_user_links')
      .values({
        user_id: userId,
        provider,
        external_id: account.externalId ?? null,
        email: account.email?.toLowerCase() ?? null,
        created_at: this.#now().toISOString(),
      })
      .execute();
  }

  async rememberMessage(row: ChatApprovalMessagesTable): Promise<void> {
    await this.#db.insertInto('chat_approval_messages').values(row).execute();
  }

  async messagesFor(callId: string, provider: string): Promise<ChatApprovalMessagesTable[]> {
    return this.#db
      .selectFrom('chat_approval_messages')
      .selectAll()
      .where('call_id', '=', callId)
      .where('provider', '=', provider)
      .execute();
  }
}
