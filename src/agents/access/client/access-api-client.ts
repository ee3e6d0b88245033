import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  type IPolicy,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import { toolMessage } from '../errors.ts';

/** Why a call did not give an answer the caller can use. `message` is the spec's text for it. */
export interface ApiFailure {
  readonly kind: 'http' | 'timeout' | 'refused' | 'dns' | 'network' | 'circuit_open' | 'invalid_response';
  readonly message: string;
  /** HTTP status, for `http`. */
  readonly status?: number;
  /** The service's own `code` and `detail`, for `http`. */
  readonly code?: string;
  readonly detail?: string;
}

export type ApiResult<T> =
  | { readonly ok: true; readonly status: number; readonly body: T }
  | { readonly ok: false; readonly failure: ApiFailure };

export interface AccessApiClientOptions {
  /** Where the catalog service listens, e.g. `http://127.0.0.1:8000` (`ACCESS_API_URL`). */
  readonly baseUrl: string;
  /** Sent as `X-Admin-Key` on admin calls only. Never logged, never returned. */
  readonly adminKey: string;
  /** Per request, in ms. Default 10 000 (spec). */
  readonly timeoutMs?: number;
  /** Extra attempts of a safe read. Default 2 (spec). */
  readonly retries?: number;
  /** First backoff delay in ms, doubled per retry. Default 200. */
  readonly initialBackoffMs?: number;
  /** Consecutive failures that open the circuit. Default 5 (spec). */
  readonly breakerThreshold?: number;
  /** How long the circuit stays open before one trial call, in ms. Default 30 000. */
  readonly halfOpenAfterMs?: number;
}

/** A transport or 5xx failure inside the policies: counted by the breaker, retried for reads. */
class BackendFailure extends Error {
  readonly failure: ApiFailure;
  constructor(failure: ApiFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps a thrown fetch error to the spec's network rows. */
function classifyNetworkError(error: unknown): ApiFailure {
  if (error instanceof BackendFailure) return error.failure;
  if (error instanceof TaskCancelledError || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))) {
    return { kind: 'timeout', message: toolMessage('ACCESS_BACKEND_TIMEOUT') };
  }
  const code = errorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL')
    return { kind: 'dns', message: toolMessage('ACCESS_BACKEND_DNS') };
  if (code === 'ECONNREFUSED') return { kind: 'refused', message: toolMessage('ACCESS_BACKEND_REFUSED') };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT') {
    return { kind: 'timeout', message: toolMessage('ACCESS_BACKEND_TIMEOUT') };
  }
  return { kind: 'network', message: toolMessage('ACCESS_BACKEND_REFUSED') };
}

interface BackendPolicies {
  readonly read: IPolicy;
  readonly write: IPolicy;
  readonly breaker: CircuitBreakerPolicy;
  /** The last failure, answered while the circuit is open ("return cached error"). */
  lastFailure: ApiFailure | undefined;
}

/**
 * Policies per backend URL (and policy settings), shared by every client and call in the
 * process: one breaker per backend.
 */
const policiesByBackend = new Map<string, BackendPolicies>();

function policiesFor(options: AccessApiClientOptions): BackendPolicies {
  const key = JSON.stringify([
    options.baseUrl,
    options.timeoutMs,
    options.retries,
    options.initialBackoffMs,
    options.breakerThreshold,
    options.halfOpenAfterMs,
  ]);
  const existing = policiesByBackend.get(key);
  if (existing) return existing;
  const transient = handleWhen((error) => !(error instanceof BrokenCircuitError));
  const breaker = circuitBreaker(transient, {
    halfOpenAfter: options.halfOpenAfterMs ?? 30_000,
    breaker: new ConsecutiveBreaker(options.breakerThreshold ?? 5),
  });
  const perAttempt = timeout(options.timeoutMs ?? 10_000, TimeoutStrategy.Aggressive);
  const retries = retry(transient, {
    maxAttempts: options.retries ?? 2,
    backoff: new ExponentialBackoff({ initialDelay: options.initialBackoffMs ?? 200, maxDelay: 5_000 }),
  });
  const policies: BackendPolicies = {
    read: wrap(retries, breaker, perAttempt),
    write: wrap(breaker, perAttempt),
    breaker,
    lastFailure: undefined,
  };
  policiesByBackend.set(key, policies);
  return policies;
}

/**
 * HTTP client of the access-catalog service: timeout, retries of safe reads with exponential
 * backoff, and a circuit breaker per backend (cockatiel). Returns results, never throws for
 * backend trouble: the tools turn failures into the spec's messages.
 */
export class AccessApiClient {
  readonly #options: AccessApiClientOptions;
  readonly #policies: BackendPolicies;
  readonly #baseUrl: string;

  constructor(options: AccessApiClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = { ...options, baseUrl: this.#baseUrl };
    this.#policies = policiesFor(this.#options);
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** `GET` with retries (safe to repeat). */
  get<T>(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<ApiResult<T>> {
    return this.#call<T>(this.#policies.read, 'GET', path, headers, undefined, signal);
  }

  /** `POST` once: never retried by the client (a grant must not be sent twice blindly). */
  post<T>(path: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal): Promise<ApiResult<T>> {
    return this.#call<T>(this.#policies.write, 'POST', path, headers, body, signal);
  }

  /** `DELETE` once: never retried by the client (like a grant, a revoke is sent once and re-read when unsure). */
  delete<T>(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<ApiResult<T>> {
    return this.#call<T>(this.#policies.write, 'DELETE', path, headers, undefined, signal);
  }

  /** Headers of an admin call; the key stays inside this client. */
  adminHeaders(): Record<string, string> {
    return { 'x-admin-key': this.#options.adminKey };
  }

  async #call<T>(
    policy: IPolicy,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<ApiResult<T>> {
    const url = `${this.#baseUrl}${path}`;
    const policies = this.#policies;
    try {
      const response = await policy.execute(async ({ signal: attemptSignal }) => {
        let res: Response;
        try {
          res = await fetch(url, {
            method,
            headers:
              body === undefined
                ? { accept: 'application/json', ...headers }
                : { accept: 'application/json', 'content-type': 'application/json', ...headers },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: attemptSignal,
          });
        } catch (error) {
          throw new BackendFailure(classifyNetworkError(error));
        }
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (res.status >= 500) {
          throw new BackendFailure({
            kind: 'http',
            status: res.status,
            message: toolMessage('ACCESS_HTTP_SERVER_ERROR'),
            ...serviceDetail(parsed),
          });
        }
        return { status: res.status, body: parsed };
      }, signal);
      policies.lastFailure = undefined;
      if (response.status >= 400) return { ok: false, failure: httpFailure(response.status, response.body) };
      if (response.body === undefined)
        return { ok: false, failure: { kind: 'invalid_response', message: toolMessage('ACCESS_HTTP_INVALID_RESPONSE') } };
      return { ok: true, status: response.status, body: response.body as T };
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        const cached = policies.lastFailure ?? { kind: 'refused' as const, message: toolMessage('ACCESS_BACKEND_REFUSED') };
        return { ok: false, failure: { ...cached, kind: 'circuit_open', detail: cached.detail ?? cached.message } };
      }
      const failure = classifyNetworkError(error);
      policies.lastFailure = failure;
      return { ok: false, failure };
    }
  }
}

function serviceDetail(body: unknown): { code?: string; detail?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const { code, detail } = body as { code?: unknown; detail?: unknown };
  return { ...(typeof code === 'string' ? { code } : {}), ...(typeof detail === 'string' ? { detail } : {}) };
}

/** The spec's generic row for a 4xx status. */
function httpFailure(status: number, body: unknown): ApiFailure {
  const service = serviceDetail(body);
  const message =
    status === 403
      ? toolMessage('ACCESS_HTTP_FORBIDDEN')
      : status === 404
        ? toolMessage('ACCESS_HTTP_NOT_FOUND')
        : status === 409
          ? toolMessage('ACCESS_HTTP_CONFLICT')
          : status === 401
            ? toolMessage('ACCESS_TOOL_AUTH_FAILED')
            : (service.detail ?? `Backend API rejected the request (HTTP ${status})`);
  return { kind: 'http', status, message, ...service };
}
