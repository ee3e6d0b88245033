/** Tables the troubleshoot agent adds to the store (see `migrations.ts`). */
import type { Generated } from 'kysely';

export type HostOs = 'linux' | 'windows' | 'unknown';
export type HostAuthKind = 'key' | 'password';

export interface HostsTable {
  id: Generated<number>;
  name: string;
  address: string;
  port: number;
  username: string;
  /** `linux` | `windows` | `unknown`; updated by `detect_os`. */
  os: string;
  auth_kind: string;
  /** Name of the private key or password in the secret store. Never the value. */
  secret_name: string;
  /** OpenSSH form `SHA256:…`; null until a person confirms the first key seen. */
  host_key_sha256: string | null;
  created_at: string;
}

export interface CommandHistoryTable {
  id: Generated<number>;
  session_id: string;
  host_id: number;
  user_id: number;
  tool_call_id: string;
  /** The exact command as approved, byte for byte. */
  command: string;
  /** `proposed` | `approved` | `executed` | `still_running` | `failed` | `blocked`. */
  status: string;
  exit_status: number | null;
  duration_ms: number | null;
  /** sha256 hex of the raw output bytes (with ANSI codes). */
  output_sha256: string | null;
  /** ANSI-stripped output, truncated for the model. */
  output_excerpt: string | null;
  proposed_at: string;
  approved_at: string | null;
  executed_at: string | null;
  approver: string | null;
  auto_approve_rule: string | null;
}
