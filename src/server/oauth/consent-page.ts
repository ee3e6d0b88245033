/** The fields of an authorization request, carried from the consent page's form back to the server. */
export interface AuthorizationFields {
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly code_challenge_method: string;
  readonly resource: string;
  readonly scope: string;
  readonly state: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
.who{font-weight:600}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}code{word-break:break-all}</style>
</head><body>${body}</body></html>`;
}

/** Asks the signed-in person whether a registered client may act for them on one resource. */
export function renderConsentPage(input: {
  readonly clientName: string;
  readonly redirectHost: string;
  readonly username: string;
  readonly csrfToken: string;
  readonly fields: AuthorizationFields;
}): string {
  const hidden = Object.entries(input.fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('');
  return page(
    'Allow access to opsgate?',
    `<h1>Allow access to opsgate?</h1>
<p>The MCP client <span class="who" id="client">${escapeHtml(input.clientName)}</span>
(it returns to <code id="redirect-host">${escapeHtml(input.redirectHost)}</code>) asks to act as
<span class="who" id="person">${escapeHtml(input.username)}</span> on <code>${escapeHtml(input.fields.resource)}</code>
with the scope <code>${escapeHtml(input.fields.scope || 'use')}</code>.</p>
<p>Its calls are recorded with you as requester; writes still wait for approval. Access ends within an hour, when you are disabled, or when the token is revoked (Settings → API tokens).</p>
<form method="post" action="/oauth/authorize">${hidden}<input type="hidden" name="csrf_token" value="${escapeHtml(input.csrfToken)}">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

/** The authorization request cannot go on without a sign-in to opsgate first. */
export function renderSignInPage(authorizeUrl: string): string {
  return page(
    'Sign in to opsgate',
    `<h1>Sign in to opsgate</h1><p>An MCP client asks to act for you. Sign in to opsgate in this browser
(<a href="/" target="_blank" rel="noopener">open opsgate</a>), then <a id="continue" href="${escapeHtml(authorizeUrl)}">continue here</a>.</p>`,
  );
}

/** An authorization request that names no valid client or redirect URI: nothing to send back to. */
export function renderRequestErrorPage(detail: string): string {
  return page('Authorization request refused', `<h1>Authorization request refused</h1><p id="detail">${escapeHtml(detail)}</p>`);
}
