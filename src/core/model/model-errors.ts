import { APICallError } from '@ai-sdk/provider';
import { defineErrorCodes, OpsgateError } from '../errors/index.ts';

/** What went wrong between opsgate and a model provider, each with what to do next. */
export const ModelErrors = defineErrorCodes({
  MODEL_KEY_REJECTED: {
    status: 502,
    message:
      'The {provider} model rejected the credentials opsgate sent (HTTP {httpStatus}: {detail}). Set a valid key in {variable} and restart opsgate.',
  },
  MODEL_RATE_LIMITED: {
    status: 503,
    message:
      'The {provider} model is rate-limiting opsgate (HTTP 429) and still was after {attempts} attempts ({detail}). Wait a minute and send the message again, or raise the quota behind {variable}.',
  },
  MODEL_UNAVAILABLE: {
    status: 502,
    message:
      "The {provider} model failed (HTTP {httpStatus}: {detail}) after {attempts} attempts. Send the message again later; if it keeps failing, check the provider's status page.",
  },
  MODEL_CIRCUIT_OPEN: {
    status: 503,
    message:
      'The {provider} model failed {failures} times in a row, so opsgate stops calling it for {seconds} seconds. Send the message again after that.',
  },
  MODEL_REQUEST_REFUSED: {
    status: 502,
    message:
      'The {provider} model refused the request opsgate built (HTTP {httpStatus}: {detail}). Check OPSGATE_MODEL names a model this provider serves; if it does, report this message.',
  },
});

/** The environment variable a person fixes when a provider rejects its credentials. */
export const KEY_VARIABLES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  'openai-chat': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  bedrock: 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
  compatible: 'OPSGATE_MODEL_API_KEY',
};

/** Whether another attempt may succeed: rate limits, server errors and lost connections. */
export function isTransientModelError(error: unknown): boolean {
  if (OpsgateError.isInstance(error)) return false;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    return status === undefined ? error.isRetryable : status === 429 || status === 408 || status >= 500;
  }
  return error instanceof TypeError; // fetch's "fetch failed": the connection itself broke
}

/** A provider's short reason, without the request body or any header (they may hold the key). */
function providerDetail(error: APICallError): string {
  const text = error.message.replace(/\s+/g, ' ').trim();
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/** A typed error for a provider failure that retries did not fix. */
export function classifyModelError(provider: string, error: unknown, attempts: number): unknown {
  if (OpsgateError.isInstance(error) || !APICallError.isInstance(error)) return error;
  const variable = KEY_VARIABLES[provider] ?? 'the provider key';
  const fields = { provider, attempts, variable, httpStatus: error.statusCode ?? 'none', detail: providerDetail(error) };
  const status = error.statusCode ?? 0;
  // Google answers an expired or wrong API key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
  const keyInvalid = status === 400 && /API_KEY_INVALID/.test(error.responseBody ?? '');
  if (status === 401 || status === 403 || keyInvalid) return ModelErrors.MODEL_KEY_REJECTED(fields, { cause: error });
  if (status === 429) return ModelErrors.MODEL_RATE_LIMITED(fields, { cause: error });
  if (status >= 400 && status < 500) return ModelErrors.MODEL_REQUEST_REFUSED(fields, { cause: error });
  return ModelErrors.MODEL_UNAVAILABLE(fields, { cause: error });
}

/**
 * How long the provider asked us to wait, in milliseconds: `retry-after-ms`, `retry-after` (seconds
 * or an HTTP date), or Google's `RetryInfo.retryDelay` in the body. Undefined when it did not say.
 */
export function requestedRetryDelayMs(error: unknown, now: number = Date.now()): number | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const headers = error.responseHeaders ?? {};
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] && Number.isFinite(ms)) return ms;
  const after = headers['retry-after'];
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const delay = /"retryDelay"\s*:\s*"([\d.]+)s"/.exec(error.responseBody ?? '');
  return delay ? Number(delay[1]) * 1000 : undefined;
}
