import { randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../core/agent/define-agent.ts';
import { UserRepository } from '../core/identity/users.ts';
import type { Runtime } from '../core/runtime/runtime-api.ts';
import type { Store } from '../core/store/index.ts';
import { ApiCatalog, apiRoute, openApiDocument } from './api-route.ts';
import { AuditReader, type AuditVerifier } from './audit-reader.ts';
import { installAuthentication } from './authenticate.ts';
import { renderDocsPage } from './docs-page.ts';
import { installErrorHandler } from './error-handler.ts';
import { type ChatIntegrationOptions, installChatIntegrations } from './integrations/index.ts';
import { LoginSessions } from './login-sessions.ts';
import { type OidcConfig, OidcLogin, oidcRoutes } from './oidc/index.ts';
import { approvalRoutes } from './routes/approval-routes.ts';
import { auditRoutes } from './routes/audit-routes.ts';
import { type LoginRateLimit, privateAuthRoutes, publicAuthRoutes } from './routes/auth-routes.ts';
import { eventSocketRoute } from './routes/event-socket.ts';
import { type HostDirectory, hostRoutes } from './routes/host-routes.ts';
import { type MetricsEndpoint, metricsRoute } from './routes/metrics-route.ts';
import { sessionRoutes } from './routes/session-routes.ts';
import { userAdminRoutes } from './routes/user-admin-routes.ts';
import { userRoutes } from './routes/user-routes.ts';
import { installRunbookPages } from './runbook-pages.ts';
import { installSecurityHeaders } from './security-headers.ts';
import { DEFAULT_WEB_ROOT, installStaticUi } from './static-ui.ts';
import { WebhookDispatcher, type WebhookOptions } from './webhooks/index.ts';

export interface ServerOptions {
  readonly runtime: Runtime;
  readonly store: Store;
  readonly users?: UserRepository;
  /** HMAC key of the session cookies (≥ 32 bytes). Default: random per process (logins end at restart). */
  readonly cookieKey?: Buffer;
  /** Login lifetime. Default 12 hours. */
  readonly loginTtlMs?: number;
  /** Verifies the audit chain (`new AuditLog(store).verify`). Without it /api/audit/verify answers 503. */
  readonly auditVerify?: AuditVerifier;
  /** The troubleshoot agent's hosts; without it /api/hosts is absent. */
  readonly hosts?: HostDirectory;
  /** Runbooks served at `/docs/runbooks/<name>.md`. Default `docs/runbooks`. */
  readonly runbookDir?: string;
  /** Built UI. Default `src/web/dist`. */
  readonly webRoot?: string;
  /** Sets `Secure` on the cookie (behind TLS). Default false. */
  readonly secureCookies?: boolean;
  /** Default 10 attempts per minute per address. */
  readonly loginRateLimit?: LoginRateLimit;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Single sign-on with an OpenID Connect issuer, beside local passwords. Default none. */
  readonly oidc?: OidcConfig;
  /** Signed approval webhooks; without it nothing is sent. */
  readonly webhooks?: WebhookOptions;
  /** Serves `GET /metrics` (Prometheus) when given. */
  readonly metrics?: MetricsEndpoint;
  /** Slack and Teams approvals (set up by admins in the UI); options for tests. */
  readonly chat?: ChatIntegrationOptions;
}

/**
 * The opsgate HTTP server: public routes (login, docs, UI files) at the root, everything else in one
 * encapsulated context whose `onRequest` hook authenticates. A route added outside that context is
 * public by construction and visible in review.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  const users = options.users ?? new UserRepository(options.store, options.clock);
  const sessions = new LoginSessions(options.cookieKey ?? randomBytes(32), {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.loginTtlMs ? { ttlMs: options.loginTtlMs } : {}),
  });
  const catalog = new ApiCatalog();

  installErrorHandler(app);
  installSecurityHeaders(app);
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, { global: false });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });

  // Public.
  publicAuthRoutes(app, catalog, {
    users,
    sessions,
    secureCookies: options.secureCookies ?? false,
    rateLimit: options.loginRateLimit ?? { max: 10, timeWindow: 60_000 },
  });
  if (options.oidc) {
    const login = await OidcLogin.create(options.oidc, options.store, users, options.clock);
    oidcRoutes(app, { login, sessions, secureCookies: options.secureCookies ?? false });
  } else {
    // The login screen asks on every visit; a 404 there was the first thing a new user's console showed.
    app.get('/api/oidc/status', async () => ({ enabled: false }));
  }
  apiRoute(app, catalog, { method: 'GET', path: '/api/health', summary: 'Liveness.', tag: 'meta', auth: false }, async () => ({
    ok: true,
  }));
  let document: Record<string, unknown> | undefined;
  const openApi = () => {
    document ??= openApiDocument(catalog, { title: 'opsgate', version: '0.1.0' });
    return document;
  };
  app.get('/openapi.json', async () => openApi());
  if (options.metrics) metricsRoute(app, options.metrics);
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderDocsPage(openApi())));
  installRunbookPages(app, options.runbookDir);
  await installStaticUi(app, options.webRoot ?? DEFAULT_WEB_ROOT);
  if (options.webhooks) {
    const dispatcher = await WebhookDispatcher.create(options.store, options.webhooks, options.logger ? { logger: options.logger } : {});
    dispatcher.start(options.runtime.events);
    app.addHook('onClose', () => dispatcher.close());
  }

  const chat = await installChatIntegrations(app, {
    runtime: options.runtime,
    store: options.store,
    users,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.chat ? { options: options.chat } : {}),
  });

  // Private: one encapsulated context, authenticated once.
  await app.register(async (privateApp) => {
    installAuthentication(privateApp, users, sessions);
    privateAuthRoutes(privateApp, catalog, { sessions });
    sessionRoutes(privateApp, catalog, options.runtime);
    approvalRoutes(privateApp, catalog, options.runtime);
    eventSocketRoute(privateApp, options.runtime);
    auditRoutes(privateApp, catalog, {
      reader: new AuditReader(options.store),
      ...(options.auditVerify ? { verify: options.auditVerify } : {}),
    });
    userRoutes(privateApp, catalog, users);
    userAdminRoutes(privateApp, catalog, users);
    if (options.hosts) hostRoutes(privateApp, catalog, options.hosts);
    chat.privateRoutes(privateApp, catalog);
  });
  return app;
}
