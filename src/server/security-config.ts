import { CoreErrors } from '../core/errors/index.ts';
import { sessionQuotaFromEnv } from './session-quota.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The server's security switches from the environment (`opsgate serve`):
 * - `OPSGATE_PUBLIC_URL=https://…`: every cookie Secure and `__Host-`-prefixed;
 * - `OPSGATE_TRUST_PROXY`: `true` (any proxy) or the proxies' addresses/CIDRs
 *   (comma-separated); the client address and protocol then come from `X-Forwarded-For` / `-Proto`;
 * - `OPSGATE_SESSION_QUOTA=ACTIVE:PER_MINUTE` (default 200:60).
 */
export function securityOptionsFromEnv(env: Env): {
  secureCookies: boolean;
  trustProxy: boolean | string;
  sessionQuota: ReturnType<typeof sessionQuotaFromEnv>;
} {
  const publicUrl = env.OPSGATE_PUBLIC_URL;
  if (publicUrl !== undefined && !/^https?:\/\//i.test(publicUrl))
    throw CoreErrors.CONFIG_INVALID({ detail: `OPSGATE_PUBLIC_URL must start with https:// or http://, got "${publicUrl}"` });
  const proxy = env.OPSGATE_TRUST_PROXY?.trim();
  const trustProxy = !proxy || proxy === 'false' ? false : proxy === 'true' ? true : proxy;
  let sessionQuota: ReturnType<typeof sessionQuotaFromEnv>;
  try {
    sessionQuota = sessionQuotaFromEnv(env.OPSGATE_SESSION_QUOTA);
  } catch (error) {
    throw CoreErrors.CONFIG_INVALID({ detail: (error as Error).message });
  }
  return { secureCookies: publicUrl?.toLowerCase().startsWith('https://') ?? false, trustProxy, sessionQuota };
}
