import { useEffect, useState } from 'preact/hooks';

/** "Sign in with single sign-on", shown only when the server has an OpenID Connect issuer configured. */
export function SsoLink() {
  const [enabled, setEnabled] = useState(false);
  useEffect(() => {
    fetch('/api/oidc/status', { headers: { accept: 'application/json' } })
      .then(async (response) => setEnabled(response.ok && ((await response.json()) as { enabled?: unknown }).enabled === true))
      .catch(() => setEnabled(false));
  }, []);
  if (!enabled) return null;
  return (
    <a class="sso" href="/api/oidc/login" data-testid="sso-login">
      Sign in with single sign-on
    </a>
  );
}
