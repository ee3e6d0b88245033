import type { FastifyReply, FastifyRequest } from 'fastify';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from './login-sessions.ts';

/**
 * Whether the browser reached us over HTTPS: always when the server is declared public over https
 * (`OPSGATE_PUBLIC_URL=https://…`), or per request when TLS ends here or at a declared proxy
 * (Fastify's `trustProxy` makes `request.protocol` follow `X-Forwarded-Proto`).
 */
export interface CookieSecurity {
  readonly alwaysSecure: boolean;
}

export function isSecureRequest(request: FastifyRequest, security: CookieSecurity): boolean {
  return security.alwaysSecure || request.protocol === 'https';
}

/** Over HTTPS the cookie is `Secure` and `__Host-`-prefixed, so no plain-HTTP page or subdomain can set or read it. */
function sessionCookieName(request: FastifyRequest, security: CookieSecurity): string {
  return isSecureRequest(request, security) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  security: CookieSecurity,
  cookie: string,
  ttlMs: number,
): void {
  void reply.setCookie(sessionCookieName(request, security), cookie, {
    httpOnly: true,
    sameSite: 'strict',
    secure: isSecureRequest(request, security),
    path: '/',
    maxAge: Math.floor(ttlMs / 1000),
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, security: CookieSecurity): void {
  void reply.clearCookie(sessionCookieName(request, security), { path: '/', secure: isSecureRequest(request, security) });
}

export function readSessionCookie(request: FastifyRequest, security: CookieSecurity): string | undefined {
  return request.cookies[sessionCookieName(request, security)];
}
