import type { Generated } from 'kysely';

/** An access a person can hold (e.g. `READ_DOCUMENTS`). */
interface AccessesTable {
  id: Generated<number>;
  name: string;
  description: string;
  /** Days a grant lasts before it must be renewed; null: it never expires. */
  renewal_period: number | null;
  /** JSON array of team tags, e.g. `["engineering"]`. */
  teams: string;
  created_at: string;
}

/** A person of the catalog (not the opsgate login user; see `catalogUserIdFor`). */
interface AccessUsersTable {
  id: Generated<number>;
  username: string;
  /** JSON array of team tags; the user may be granted only accesses tagged with one of them. */
  teams: Generated<string>;
  created_at: string;
}

/** One grant. A grant is held while it is neither revoked nor expired. */
interface UserAccessesTable {
  id: Generated<number>;
  user_id: number;
  access_id: number;
  assigned_at: string;
  /** `assigned_at` + the access's renewal period; null when the access has none. */
  expires_at: string | null;
  reason: string | null;
  revoked_at: string | null;
}

export interface AccessDatabase {
  accesses: AccessesTable;
  access_users: AccessUsersTable;
  user_accesses: UserAccessesTable;
}
