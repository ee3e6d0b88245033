import type { Kysely } from 'kysely';
import type { Clock, SecretStore } from '../../../core/agent/define-agent.ts';
import type { Store } from '../../../core/store/index.ts';
import { TroubleshootErrors } from '../errors.ts';
import type { CommandHistoryTable, HostAuthKind, HostOs, HostsTable } from '../store/schema.ts';

export interface Host {
  readonly id: number;
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly username: string;
  readonly os: HostOs;
  readonly authKind: HostAuthKind;
  /** Name of the key or password in the secret store (never the value). */
  readonly secretName: string;
  /** Pinned `SHA256:…` fingerprint; undefined until confirmed. */
  readonly hostKeySha256?: string;
  readonly createdAt: string;
}

export interface AddHostInput {
  readonly name: string;
  readonly address: string;
  /** Default 22. */
  readonly port?: number;
  readonly username: string;
  /** Default `unknown`; `detect_os` fills it. */
  readonly os?: HostOs;
  readonly auth:
    | { readonly kind: 'key'; readonly privateKey: string; readonly passphrase?: string }
    | { readonly kind: 'password'; readonly password: string };
  /** A fingerprint already confirmed by the person (e.g. `--fingerprint`). */
  readonly hostKeySha256?: string;
}

/** The stored credentials of a host: a JSON document in the secret store. */
export interface HostSecret {
  readonly privateKey?: string;
  readonly passphrase?: string;
  readonly password?: string;
}

export type TroubleshootTables = { hosts: HostsTable; command_history: CommandHistoryTable };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

export function troubleshootDb(store: Store): Kysely<TroubleshootTables> {
  return store.db.withTables<TroubleshootTables>() as unknown as Kysely<TroubleshootTables>;
}

function toHost(row: { id: number } & Omit<HostsTable, 'id'>): Host {
  return {
    id: row.id,
    name: row.name,
    address: row.address,
    port: Number(row.port),
    username: row.username,
    os: (row.os === 'linux' || row.os === 'windows' ? row.os : 'unknown') as HostOs,
    authKind: row.auth_kind === 'password' ? 'password' : 'key',
    secretName: row.secret_name,
    ...(row.host_key_sha256 ? { hostKeySha256: row.host_key_sha256 } : {}),
    createdAt: row.created_at,
  };
}

/** Registered SSH hosts; credentials go to the `SecretStore`, the row holds only the secret's name. */
export class HostRepository {
  readonly #db: Kysely<TroubleshootTables>;
  readonly #secrets: SecretStore;
  readonly #clock: Clock;

  constructor(store: Store, secrets: SecretStore, clock: Clock = { now: () => new Date() }) {
    this.#db = troubleshootDb(store);
    this.#secrets = secrets;
    this.#clock = clock;
  }

  async add(input: AddHostInput): Promise<Host> {
    if (!NAME.test(input.name))
      throw TroubleshootErrors.HOST_INPUT_INVALID({ detail: `Host name "${input.name}" must be 1-63 letters, digits, ".", "_" or "-".` });
    const port = input.port ?? 22;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw TroubleshootErrors.HOST_INPUT_INVALID({ detail: `Port must be 1-65535, got ${port}.` });
    if (input.hostKeySha256 !== undefined && !FINGERPRINT.test(input.hostKeySha256)) {
      throw TroubleshootErrors.HOST_INPUT_INVALID({
        detail: `The fingerprint must look like SHA256:<43 base64 characters>, got "${input.hostKeySha256}".`,
      });
    }
    if (await this.find(input.name)) throw TroubleshootErrors.HOST_EXISTS({ host: input.name });
    const secretName = `troubleshoot/host/${input.name}`;
    const secret: HostSecret =
      input.auth.kind === 'key'
        ? { privateKey: input.auth.privateKey, ...(input.auth.passphrase ? { passphrase: input.auth.passphrase } : {}) }
        : { password: input.auth.password };
    await this.#secrets.set(secretName, JSON.stringify(secret));
    await this.#db
      .insertInto('hosts')
      .values({
        name: input.name,
        address: input.address,
        port,
        username: input.username,
        os: input.os ?? 'unknown',
        auth_kind: input.auth.kind,
        secret_name: secretName,
        host_key_sha256: input.hostKeySha256 ?? null,
        created_at: this.#clock.now().toISOString(),
      })
      .execute();
    return this.get(input.name);
  }

  async find(name: string): Promise<Host | undefined> {
    const row = await this.#db.selectFrom('hosts').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toHost(row) : undefined;
  }

  async get(name: string): Promise<Host> {
    const host = await this.find(name);
    if (!host) throw TroubleshootErrors.HOST_NOT_FOUND({ host: name });
    return host;
  }

  async list(): Promise<Host[]> {
    const rows = await this.#db.selectFrom('hosts').selectAll().orderBy('name').execute();
    return rows.map(toHost);
  }

  async remove(name: string): Promise<void> {
    const host = await this.get(name);
    await this.#db.deleteFrom('hosts').where('id', '=', host.id).execute();
    await this.#secrets.delete(host.secretName);
  }

  /**
   * Pins the host key a person confirmed. Only an unpinned host can be pinned: a changed key is
   * never re-pinned silently (remove and re-add the host instead).
   */
  async confirmHostKey(name: string, fingerprint: string): Promise<Host> {
    if (!FINGERPRINT.test(fingerprint))
      throw TroubleshootErrors.HOST_INPUT_INVALID({
        detail: `The fingerprint must look like SHA256:<43 base64 characters>, got "${fingerprint}".`,
      });
    const host = await this.get(name);
    if (host.hostKeySha256 && host.hostKeySha256 !== fingerprint) {
      throw TroubleshootErrors.HOST_KEY_CHANGED({
        host: name,
        address: host.address,
        port: host.port,
        expected: host.hostKeySha256,
        actual: fingerprint,
      });
    }
    await this.#db.updateTable('hosts').set({ host_key_sha256: fingerprint }).where('id', '=', host.id).execute();
    return this.get(name);
  }

  async setOs(name: string, os: HostOs): Promise<void> {
    await this.#db.updateTable('hosts').set({ os }).where('name', '=', name).execute();
  }

  /** The credentials; for the SSH connection only. Never log or return them. */
  async secretOf(host: Host): Promise<HostSecret> {
    const raw = await this.#secrets.get(host.secretName);
    if (raw === undefined) throw TroubleshootErrors.SSH_SECRET_MISSING({ secret: host.secretName, host: host.name });
    return JSON.parse(raw) as HostSecret;
  }
}
