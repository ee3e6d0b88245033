import type { AgentInfo } from '../../core/runtime/runtime-api.ts';
import type { ApprovalReadiness, Decision, SessionEvent, SessionSnapshot, SessionSummary, TurnResult } from '../../core/runtime/types.ts';

export type { AgentInfo, ApprovalReadiness, Decision, SessionEvent, SessionSnapshot, SessionSummary, TurnResult };

export interface Me {
  readonly userId: number;
  readonly username: string;
  readonly roles: readonly string[];
}

/** An error answer of the server: a stable code and what to do next. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** What a person reads when the server cannot be reached (instead of "TypeError: Failed to fetch"). */
export const OFFLINE_MESSAGE = 'Cannot reach the opsgate server. Nothing was sent; check the connection and try again when it is back.';

/** Any thrown value as a sentence a person can act on. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the page. Reload it; if it happens again, tell your opsgate admin.';
}

let csrfToken: string | undefined;

/** One JSON request with the CSRF token; an error answer becomes an `ApiError`. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'OFFLINE', OFFLINE_MESSAGE);
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(
      response.status,
      'BAD_RESPONSE',
      `The server answered ${response.status} with something that is not JSON. Try again in a moment.`,
    );
  }
  if (!response.ok) {
    const failure = (data ?? {}) as { code?: string; message?: string };
    if (response.status === 401) onUnauthorized?.();
    throw new ApiError(response.status, failure.code ?? 'HTTP_ERROR', failure.message ?? `The server answered ${response.status}.`);
  }
  return data as T;
}

let onUnauthorized: (() => void) | undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export const api = {
  async me(): Promise<Me | undefined> {
    try {
      const answer = await request<{ user: Me; csrfToken?: string }>('GET', '/api/me');
      csrfToken = answer.csrfToken;
      return answer.user;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return undefined;
      throw error;
    }
  },
  async login(username: string, password: string): Promise<Me> {
    const answer = await request<{ user: Me; csrfToken: string }>('POST', '/api/login', { username, password });
    csrfToken = answer.csrfToken;
    return answer.user;
  },
  async logout(): Promise<void> {
    await request('POST', '/api/logout');
    csrfToken = undefined;
  },
  agents: () => request<{ agents: AgentInfo[] }>('GET', '/api/agents').then((a) => a.agents),
  sessions: (all: boolean) =>
    request<{ sessions: SessionSummary[] }>('GET', `/api/sessions${all ? '?all=true' : ''}`).then((a) => a.sessions),
  session: (id: string) => request<SessionSnapshot>('GET', `/api/sessions/${encodeURIComponent(id)}`),
  startSession: (agent: string, options?: Record<string, unknown>) =>
    request<SessionSnapshot>('POST', '/api/sessions', { agent, ...(options ? { options } : {}) }),
  send: (id: string, text: string) => request<TurnResult>('POST', `/api/sessions/${encodeURIComponent(id)}/messages`, { text }),
  decide: (id: string, decision: Decision) => request<TurnResult>('POST', `/api/sessions/${encodeURIComponent(id)}/decisions`, decision),
  approvalReadiness: (id: string, callId: string) =>
    request<ApprovalReadiness>('GET', `/api/sessions/${encodeURIComponent(id)}/approvals/${encodeURIComponent(callId)}/readiness`),
  feedback: (id: string, input: { rating: 1 | -1; target?: string; comment?: string }) =>
    request('POST', `/api/sessions/${encodeURIComponent(id)}/feedback`, input),
  audit: (query: Record<string, string>) => {
    const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '')).toString();
    return request<{ events: AuditEventView[]; hasMore: boolean }>('GET', `/api/audit${search ? `?${search}` : ''}`);
  },
  auditTypes: () => request<{ types: string[] }>('GET', '/api/audit/types').then((a) => a.types),
  auditVerify: () => request<{ ok: boolean; checked: number; firstBrokenSeq?: number; reason?: string }>('GET', '/api/audit/verify'),
  hosts: () => request<{ hosts: HostView[] }>('GET', '/api/hosts').then((a) => a.hosts),
  addHost: (input: {
    name: string;
    address: string;
    port?: number;
    username: string;
    auth: { kind: 'key'; privateKey: string } | { kind: 'password'; password: string };
  }) => request<{ name: string }>('POST', '/api/hosts', input),
  hostFingerprint: (name: string) =>
    request<{ fingerprint: string }>('GET', `/api/hosts/${encodeURIComponent(name)}/fingerprint`).then((a) => a.fingerprint),
  trustHost: (name: string, fingerprint: string) => request('POST', `/api/hosts/${encodeURIComponent(name)}/trust`, { fingerprint }),
  removeHost: (name: string) => request('DELETE', `/api/hosts/${encodeURIComponent(name)}`),
  users: () => request<{ users: UserView[] }>('GET', '/api/users').then((a) => a.users),
  setRoles: (username: string, roles: string[]) => request<UserView>('PUT', `/api/users/${encodeURIComponent(username)}/roles`, { roles }),
  setPassword: (username: string, password: string) => request('POST', `/api/users/${encodeURIComponent(username)}/password`, { password }),
  createUser: (input: { username: string; password?: string; roles: string[] }) => request<UserView>('POST', '/api/users', input),
  tokens: () => request<{ tokens: TokenView[] }>('GET', '/api/tokens').then((a) => a.tokens),
  issueToken: (name: string) => request<{ token: string }>('POST', '/api/tokens', { name }),
  revokeToken: (id: number) => request('DELETE', `/api/tokens/${id}`),
};

export interface HostView {
  readonly id: number;
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly username: string;
  readonly os: string;
  readonly hostKeySha256?: string;
}

export interface UserView {
  readonly id: number;
  readonly username: string;
  readonly roles: readonly string[];
}

export interface TokenView {
  readonly id: number;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt?: string;
  readonly expiresAt?: string;
  readonly scopes: readonly string[];
  readonly issuedBy?: string;
}

export interface AuditEventView {
  readonly seq: number;
  readonly sessionId: string | null;
  readonly type: string;
  readonly actor: string;
  readonly payload: unknown;
  readonly hash: string;
  readonly createdAt: string;
}
