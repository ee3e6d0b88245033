import type { Kysely } from 'kysely';
import type { SecretStore } from '../../core/agent/index.ts';
import type { Store, StoreMigration } from '../../core/store/index.ts';

/** Where approval requests go in Slack, and the app's credentials (never sent to a browser). */
export interface SlackSettings {
  readonly botToken: string;
  readonly signingSecret: string;
  /** A channel id (`C…`) to post every request to; empty: each eligible approver's direct messages. */
  readonly channel: string;
  /** Who last set the bot token or signing secret, and when (ISO): presses are signed with them. */
  readonly credentialsChangedBy?: string;
  readonly credentialsChangedAt?: string;
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
  /** When the link was last set (ISO). */
  created_at: string;
  /** Who set it (`core-050`); null for links made before opsgate recorded it. */
  linked_by: string | null;
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

/** A link a person asked for and has not confirmed yet: the code the bot sent them, as its sha256. */
interface ChatLinkCodesTable {
  user_id: number;
  provider: string;
  external_id: string;
  code_hash: string;
  expires_at: string;
  attempts: number;
}

interface ChatDatabase {
  chat_link_codes: ChatLinkCodesTable;
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

/** Who set a link: recorded since `core-050`. */
export const chatLinkIssuerMigration: StoreMigration = {
  name: 'core-050-chat-link-issuer',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('chat_user_links').addColumn('linked_by', 'text').execute();
  },
};

/** Links a person confirms themselves: the code the bot sends to their chat account (`core-051`). */
export const chatLinkCodesMigration: StoreMigration = {
  name: 'core-051-chat-link-codes',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('chat_link_codes')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('chat_link_codes_pk', ['user_id', 'provider'])
      .execute();
  },
};

export interface PendingChatLink {
  readonly externalId: string;
  readonly codeHash: string;
  readonly expiresAt: string;
  readonly attempts: number;
}

export interface ChatUserLink {
  readonly userId: number;
  readonly externalId?: string;
  readonly email?: string;
  /** When it was last set (ISO). */
  readonly linkedAt: string;
  /** Who set it; absent for links older than opsgate's record of it. */
  readonly linkedBy?: string;
}

type SettingsName = 'slack' | 'teams' | 'common';

/**
 * Fields kept in the secrets store (AES-256-GCM under the secrets key, like host secrets) rather
 * than in `chat_integrations`: whoever holds the signing secret can sign a button press as anyone
 * linked, and a webhook URL is its own credential.
 */
const SECRET_FIELDS: Readonly<Record<SettingsName, readonly string[]>> = {
  slack: ['botToken', 'signingSecret'],
  teams: ['webhookUrl'],
  common: [],
};

function secretName(name: SettingsName, field: string): string {
  return `chat.${name}.${field}`;
}

/** Settings, user links and posted messages of the chat integrations. */
export class ChatIntegrationStore {
  readonly #db: Kysely<ChatDatabase>;
  readonly #secrets: SecretStore;
  readonly #now: () => Date;

  constructor(store: Store, secrets: SecretStore, now: () => Date = () => new Date()) {
    this.#db = store.db as unknown as Kysely<ChatDatabase>;
    this.#secrets = secrets;
    this.#now = now;
  }

  /** The settings with their secrets decrypted; a row from before secrets moved out is moved on first read. */
  async settings<T>(name: SettingsName): Promise<T | undefined> {
    const row = await this.#db.selectFrom('chat_integrations').select('settings').where('name', '=', name).executeTakeFirst();
    if (!row) return undefined;
    const stored = JSON.parse(row.settings) as Record<string, unknown>;
    if (SECRET_FIELDS[name].some((field) => field in stored)) {
      await this.saveSettings(name, stored);
      return this.settings<T>(name);
    }
    const settings: Record<string, unknown> = { ...stored };
    for (const field of SECRET_FIELDS[name]) {
      const value = await this.#secrets.get(secretName(name, field));
      if (value !== undefined) settings[field] = value;
    }
    return settings as T;
  }

  async saveSettings(name: SettingsName, settings: object | undefined): Promise<void> {
    if (!settings) {
      await this.#db.deleteFrom('chat_integrations').where('name', '=', name).execute();
      for (const field of SECRET_FIELDS[name]) await this.#secrets.delete(secretName(name, field));
      return;
    }
    const plain: Record<string, unknown> = { ...settings };
    for (const field of SECRET_FIELDS[name]) {
      const value = plain[field];
      delete plain[field];
      if (typeof value === 'string' && value !== '') await this.#secrets.set(secretName(name, field), value);
      else await this.#secrets.delete(secretName(name, field));
    }
    const row = { name, settings: JSON.stringify(plain), updated_at: this.#now().toISOString() };
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
      linkedAt: row.created_at,
      ...(row.linked_by ? { linkedBy: row.linked_by } : {}),
    }));
  }

  /** Sets (or, with neither an id nor an e-mail, removes) a person's link, recording who set it. */
  async link(provider: string, userId: number, account: { externalId?: string; email?: string }, linkedBy: string): Promise<void> {
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
        linked_by: linkedBy,
      })
      .execute();
  }

  /** Replaces the person's unconfirmed link with this one. */
  async offerLink(provider: string, userId: number, pending: Omit<PendingChatLink, 'attempts'>): Promise<void> {
    await this.dropOffer(provider, userId);
    await this.#db
      .insertInto('chat_link_codes')
      .values({
        user_id: userId,
        provider,
        external_id: pending.externalId,
        code_hash: pending.codeHash,
        expires_at: pending.expiresAt,
        attempts: 0,
      })
      .execute();
  }

  async offer(provider: string, userId: number): Promise<PendingChatLink | undefined> {
    const row = await this.#db
      .selectFrom('chat_link_codes')
      .selectAll()
      .where('provider', '=', provider)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && { externalId: row.external_id, codeHash: row.code_hash, expiresAt: row.expires_at, attempts: Number(row.attempts) };
  }

  async countWrongCode(provider: string, userId: number): Promise<void> {
    await this.#db
      .updateTable('chat_link_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('provider', '=', provider)
      .where('user_id', '=', userId)
      .execute();
  }

  async dropOffer(provider: string, userId: number): Promise<void> {
    await this.#db.deleteFrom('chat_link_codes').where('provider', '=', provider).where('user_id', '=', userId).execute();
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
