import type { Generated } from 'kysely';

/** JSON documents are stored as text in both dialects; repositories parse and serialise them. */
type JsonText = string;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  password_hash: string | null;
  /** JSON array of role names. */
  roles: JsonText;
  created_at: string;
  /** Set while the person may not sign in or use tokens. */
  disabled_at: string | null;
  /** Epoch ms: login cookies issued at or before this no longer count (password change, disable). */
  sessions_valid_after: number | null;
}

interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  /** Comma-separated: `use`, `approve`, `admin`. */
  scopes: Generated<string>;
  /** Username of whoever issued it (`local-admin` for the CLI); the holder's own name when self-issued. */
  issued_by: string | null;
}

/** A login cookie ended by logout, kept until the cookie would have expired anyway. */
interface LoginRevocationsTable {
  nonce: string;
  user_id: number;
  expires_at: number;
}

/** Failed sign-ins per key (`account:NAME`, `account-ip:NAME|IP`, `ip:IP`) in the current window. */
interface OAuthClientsTable {
  client_id: string;
  client_name: string;
  /** JSON array of the exact redirect URIs the client registered. */
  redirect_uris: string;
  /** The client's registered metadata (RFC 7591), JSON. */
  metadata: string;
  created_at: string;
}

interface OAuthCodesTable {
  /** sha256 of the one-time code. */
  code_hash: string;
  client_id: string;
  user_id: number;
  /** PKCE S256 challenge. */
  code_challenge: string;
  redirect_uri: string;
  /** The resource (RFC 8707) the person granted access to. */
  resource: string;
  scopes: string;
  /** Epoch ms. */
  expires_at: number;
  /** Epoch ms when exchanged; a code is exchanged once. */
  used_at: number | null;
}

interface OAuthTokensTable {
  /** sha256 of the access token, as in api_tokens. */
  token_hash: string;
  api_token_id: number;
  client_id: string;
  /** The only resource the token may be presented to. */
  resource: string;
}

interface LoginFailuresTable {
  key: string;
  window_start: number;
  failures: number;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  agent: string;
  /** troubleshoot agent: `troubleshoot` | `revive`; others name their own. */
  pillar: string;
  route: string;
  phase: string;
  role: string;
  title: string;
  status: string;
  steps: number;
  /** JSON: versioned session state (agent state, phase history, options). */
  state: JsonText;
  /** JSON: the pending interrupt, or null. */
  interrupt: JsonText | null;
  /** Optimistic lock: bumped by every write of the row. */
  version: number;
  /** The runtime instance running a turn of this session (while `running`). */
  runner: string | null;
  created_at: string;
  updated_at: string;
}

interface MessagesTable {
  id: Generated<number>;
  session_id: string;
  seq: number;
  role: string;
  /** JSON: one LanguageModel prompt message. */
  content: JsonText;
  created_at: string;
}

export interface ToolCallsTable {
  id: string;
  session_id: string;
  seq: number;
  tool: string;
  args: JsonText;
  args_hash: string;
  mutability: string;
  risk: string;
  status: string;
  verdict: JsonText | null;
  preview: JsonText | null;
  decision: JsonText | null;
  result: JsonText | null;
  error: string | null;
  requested_by: number;
  approved_by: string | null;
  approval_rule: string | null;
  created_at: string;
  expires_at: string | null;
  decided_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** The runtime instance that moved the call to `executing`. */
  runner: string | null;
}

export interface AuditEventsTable {
  seq: Generated<number>;
  session_id: string | null;
  type: string;
  actor: string;
  payload: JsonText;
  prev_hash: string;
  hash: string;
  created_at: string;
  /** The journal MAC the event was written with (`core-030-audit-anchors`); null before it. */
  mac: string | null;
}

/** Signed chain heads (`core-030-audit-anchors`); copies go to a file outside the store. */
interface AuditCheckpointsTable {
  seq: number;
  hash: string;
  at: string;
  key_id: string;
  macs_from: number;
  signature: string;
}

/** Audit events written but not yet sealed into the hash chain (`audit_events`). */
interface AuditPendingTable {
  id: Generated<number>;
  session_id: string | null;
  type: string;
  actor: string;
  payload: JsonText;
  created_at: string;
  /** HMAC with the audit key over the row (`core-030-audit-anchors`). */
  mac: string | null;
}

interface SessionEventsTable {
  id: Generated<number>;
  session_id: string;
  seq: number;
  type: string;
  data: JsonText;
  created_at: string;
}

export interface FeedbackTable {
  id: Generated<number>;
  session_id: string;
  user_id: number;
  /** A tool call id or message seq the rating is about; null for the whole session. */
  target: string | null;
  rating: number;
  comment: string | null;
  created_at: string;
}

/** One model step's tokens and cost (`core-010-model-usage`); cost is null when the model's price is unknown. */
interface ModelUsageTable {
  id: Generated<number>;
  session_id: string;
  turn: number;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  created_at: string;
}

interface SecretsTable {
  name: string;
  value: string;
  created_at: string;
}

interface RuntimeInstancesTable {
  id: string;
  hostname: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
}

export interface CoreDatabase {
  runtime_instances: RuntimeInstancesTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  sessions: SessionsTable;
  messages: MessagesTable;
  tool_calls: ToolCallsTable;
  audit_events: AuditEventsTable;
  audit_pending: AuditPendingTable;
  audit_checkpoints: AuditCheckpointsTable;
  session_events: SessionEventsTable;
  feedback: FeedbackTable;
  secrets: SecretsTable;
  login_revocations: LoginRevocationsTable;
  login_failures: LoginFailuresTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  model_usage: ModelUsageTable;
}
