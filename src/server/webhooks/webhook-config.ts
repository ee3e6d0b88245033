import { CoreErrors } from '../../core/errors/index.ts';
import type { WebhookOptions } from './webhook-dispatcher.ts';

/**
 * `OPSGATE_WEBHOOK_URLS` (comma-separated http(s) URLs) and `OPSGATE_WEBHOOK_SECRET` (≥ 16
 * characters, required with URLs). No URLs: no webhooks. Anything malformed is a typed error.
 */
export function webhookOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): WebhookOptions | undefined {
  const urls = (env.OPSGATE_WEBHOOK_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url.length > 0);
  if (urls.length === 0) return undefined;
  for (const url of urls) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw CoreErrors.CONFIG_INVALID({ detail: `OPSGATE_WEBHOOK_URLS holds "${url}", which is not a URL` });
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw CoreErrors.CONFIG_INVALID({ detail: `OPSGATE_WEBHOOK_URLS must list http(s) URLs, got "${url}"` });
  }
  const secret = env.OPSGATE_WEBHOOK_SECRET ?? '';
  if (secret.length < 16)
    throw CoreErrors.CONFIG_INVALID({ detail: 'OPSGATE_WEBHOOK_SECRET must be set (at least 16 characters) when OPSGATE_WEBHOOK_URLS is' });
  return { urls, secret };
}
