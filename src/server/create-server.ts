import { randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../core/agent/define-agent.ts';
import { AuditLog } from '../core/audit/index.ts';
import { OAuthGrants } from '../core/identity/oauth-grants.ts';
import { UserRepository } from '../core/identity/users.ts';
import type { Runtime } from '../core/runtime/runtime-api.ts';
import type { Store } from '../core/store/index.ts';
import type { Gateway } from '../gateway/index.ts';
import { ApiCatalog, apiRoute, openApiDocument } from './api-route.ts';
import { AuditReader, type AuditVerifier } from './audit-reader.ts';
import { Authenticator, installAuthentication } from './authenticate.ts';
import { renderDocsPage } from './docs-page.ts';
import { installErrorHandler } from './error-handler.ts';
import { announceToolChanges } from './gateway-notices.ts';
import { IdentityChanges } from './identity-changes.ts';
import { type ChatIntegrationOptions, installChatIntegrations } from './integrations/index.ts';
import { type LoginLimitConfig, LoginLimits } from './login-limits.ts';
import { LoginRevocations, LoginSessions } from './login-sessions.ts';
import { registerOAuthRoutes } from './oauth/oauth-routes.ts';
import { type OidcConfig, OidcLogin, oidcRoutes } from './oidc/index.ts';
import { approvalRoutes } from './routes/approval-routes.ts';
import { auditRoutes } from './routes/audit-routes.ts';
import { type LoginRateLimit, privateAuthRoutes, publicAuthRoutes } from './routes/auth-routes.ts';
import { eventSocketRoute } from './routes/event-socket.ts';
import { gatewayAdminRoutes } from './routes/gateway-admin-routes.ts';
import { type HelmClusterDirectory, helmClusterRoutes } from './routes/helm-cluster-routes.ts';
import { type HostDirectory, hostRoutes } from './routes/host-routes.ts';
import { type MetricsEndpoint, metricsRoute } from './routes/metrics-route.ts';
import { probeRoutes } from './routes/probe-routes.ts';
import { sessionRoutes } from './routes/session-routes.ts';
import { usageRoute } from './routes/usage-route.ts';
import { userRoutes } from './routes/user-routes.ts';
import { installRunbookPages } from './runbook-pages.ts';
import { installSecurityHeaders } from './security-headers.ts';
import { SessionQuota, type SessionQuotaConfig } from './session-quota.ts';
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
  /** The helm agent's target clusters; without it /api/helm/clusters is absent. */
  readonly helmClusters?: HelmClusterDirectory;
  /** Runbooks served at `/docs/runbooks/<name>.md`. Default `docs/runbooks`. */
  readonly runbookDir?: string;
  /** Built UI. Default `src/web/dist`. */
  readonly webRoot?: string;
  /**
   * Every cookie `Secure` with the `__Host-` prefix: the server is reached over HTTPS
   * (`OPSGATE_PUBLIC_URL=https://…`). Without it, a request over TLS (or, with `trustProxy`, one
   * whose proxy says `X-Forwarded-Proto: https`) still gets them. Default false.
   */
  readonly secureCookies?: boolean;
  /** Fastify's `trustProxy` (`OPSGATE_TRUST_PROXY`): client address and protocol from the proxy's headers. Default false. */
  readonly trustProxy?: boolean | string;
  /** Per-process flood guard on POST /api/login. Default 60 attempts per minute per address. */
  readonly loginRateLimit?: LoginRateLimit;
  /** Failed sign-ins per account and address, in the store (shared by replicas). */
  readonly loginLimits?: Partial<LoginLimitConfig>;
  /** Sessions one person may hold and start per minute. Default 200 / 60. */
  readonly sessionQuota?: SessionQuotaConfig;
  /** How often an open WebSocket checks its credential when idle. Default 30 s. */
  readonly socketRecheckMs?: number;
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
  /** The MCP gateway this server fronts: its admins review changed tool definitions here, and hear of them. */
  readonly gateway?: Gateway;
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
    trustProxy: options.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  const users = options.users ?? new UserRepository(options.store, options.clock);
  const sessions = new LoginSessions(options.cookieKey ?? randomBytes(32), {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.loginTtlMs ? { ttlMs: options.loginTtlMs } : {}),
  });
  const catalog = new ApiCatalog();
  const audit = new AuditLog(options.store, () => options.clock?.now() ?? new Date());
  const revocations = new LoginRevocations(options.store, options.clock);
  const grants = new OAuthGrants(options.store, users, options.clock);
  const authenticator = new Authenticator(users, sessions, revocations, grants);
  const changes = new IdentityChanges(options.store);
  const security = { alwaysSecure: options.secureCookies ?? false };
  const authDeps = {
    users,
    sessions,
    revocations,
    limits: new LoginLimits(options.store, options.loginLimits, options.clock),
    audit,
    security,
    changes,
  };

  installErrorHandler(app);
  installSecurityHeaders(app);
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, { global: false });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });

  // Public.
  publicAuthRoutes(app, catalog, { ...authDeps, rateLimit: options.loginRateLimit ?? { max: 60, timeWindow: 60_000 } });
  await registerOAuthRoutes(app, { grants, authenticator, security, audit });
  if (options.oidc) {
    const login = await OidcLogin.create(options.oidc, options.store, users, options.clock);
    oidcRoutes(app, { login, sessions, users, audit, security });
  } else {
    // The login screen asks on every visit; a 404 there was the first thing a new user's console showed.
    app.get('/api/oidc/status', async () => ({ enabled: false }));
  }
  apiRoute(app, catalog, { method: 'GET', path: '/api/health', summary: 'Liveness.', tag: 'meta', auth: false }, async () => ({
    ok: true,
  }));
  probeRoutes(app, catalog, options.store);
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
  let dispatcher: WebhookDispatcher | undefined;
  if (options.webhooks) {
    dispatcher = await WebhookDispatcher.create(options.store, options.webhooks, options.logger ? { logger: options.logger } : {});
    dispatcher.start(options.runtime.events);
    const started = dispatcher;
    app.addHook('onClose', () => started.close());
  }

  const chat = await installChatIntegrations(app, {
    runtime: options.runtime,
    store: options.store,
    audit,
    users,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.chat ? { options: options.chat } : {}),
  });

  if (options.gateway) {
    const stop = announceToolChanges(options.gateway, options.store, {
      users,
      slack: chat,
      ...(dispatcher ? { webhooks: dispatcher } : {}),
      ...(options.chat?.publicUrl ? { publicUrl: options.chat.publicUrl } : {}),
    });
    app.addHook('onClose', async () => stop());
  }

  // Private: one encapsulated context, authenticated once.
  await app.register(async (privateApp) => {
    installAuthentication(privateApp, authenticator, security);
    privateAuthRoutes(privateApp, catalog, authDeps);
    sessionRoutes(privateApp, catalog, options.runtime, new SessionQuota(options.store, options.sessionQuota, options.clock));
    usageRoute(privateApp, catalog, options.runtime);
    approvalRoutes(privateApp, catalog, options.runtime);
    eventSocketRoute(privateApp, options.runtime, {
      authenticator,
      changes,
      ...(options.socketRecheckMs ? { recheckMs: options.socketRecheckMs } : {}),
    });
    auditRoutes(privateApp, catalog, {
      reader: new AuditReader(options.store),
      ...(options.auditVerify ? { verify: options.auditVerify } : {}),
    });
    userRoutes(privateApp, catalog, users, changes);
    if (options.hosts) hostRoutes(privateApp, catalog, options.hosts, audit);
    if (options.helmClusters) helmClusterRoutes(privateApp, catalog, options.helmClusters, audit);
    chat.privateRoutes(privateApp, catalog);
    gatewayAdminRoutes(privateApp, catalog, options.gateway, options.store);
  });
  app.addHook('onClose', async () => {
    await changes.close();
    await audit.close();
  });
  return app;
}
