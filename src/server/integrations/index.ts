import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createStoreSecretStore, type SecretStore } from '../../core/agent/index.ts';
import type { AuditLog } from '../../core/audit/index.ts';
import type { UserRepository } from '../../core/identity/users.ts';
import type { Runtime } from '../../core/runtime/index.ts';
import type { Store } from '../../core/store/index.ts';
import type { ApiCatalog } from '../api-route.ts';
import { chatIntegrationRoutes } from './chat-integration-routes.ts';
import {
  ChatIntegrationStore,
  chatIntegrationsMigration,
  chatLinkCodesMigration,
  chatLinkIssuerMigration,
} from './chat-integration-store.ts';
import { chatLinkRoutes } from './chat-link-routes.ts';
import { chatTestRoutes } from './chat-test-routes.ts';
import { SlackIntegration } from './slack/slack-integration.ts';
import { slackInteractivityRoute } from './slack/slack-interactivity-route.ts';
import { TeamsIntegration } from './teams/teams-integration.ts';

export { SLACK_ACTIONS_PATH } from './slack/slack-interactivity-route.ts';

export interface ChatIntegrationOptions {
  /** Slack's Web API base (tests point it at a local server). Default Slack's own. */
  readonly slackApiUrl?: string;
  /** Links in messages open this address when no admin saved one (`OPSGATE_PUBLIC_URL`). */
  readonly publicUrl?: string;
  /**
   * How long after someone sets a person's Slack link, or the Slack app's secrets, a press through
   * them counts as a credential that someone issued (it cannot approve another person's call).
   * Milliseconds; default 24 hours.
   */
  readonly changeHoldMs?: number;
  /**
   * How long a person's Slack link that someone else set (an admin, through the admin route) counts
   * as a credential that someone issued. Default: for as long as it stands, so only the link a
   * person confirmed themselves with the code opsgate sends them in Slack approves other people's
   * calls (review H2-new); an admin's link still notifies and rejects. Milliseconds.
   */
  readonly linkHoldMs?: number;
  /** The clock that dates changes and judges the hold. Default the system clock. */
  readonly now?: () => Date;
}

/**
 * Slack and Teams approvals: creates their tables, hears every session's approval events, serves
 * Slack's public interactivity endpoint, and returns the admin routes to mount behind authentication.
 * Both stay silent until an admin sets them up.
 */
export async function installChatIntegrations(
  app: FastifyInstance,
  deps: {
    runtime: Runtime;
    store: Store;
    users: UserRepository;
    logger?: Logger;
    options?: ChatIntegrationOptions;
    /** Where chat set-up changes are recorded (the server's audit log). */
    audit: AuditLog;
    /** Where the chat secrets are encrypted. Default: the store's secrets store (the key `OPSGATE_SECRETS_KEY` or `secrets.key`). */
    secrets?: SecretStore;
  },
): Promise<{
  privateRoutes(privateApp: FastifyInstance, catalog: ApiCatalog): void;
  drain(): Promise<void>;
  /** A notice for admins through Slack (see `SlackIntegration.notice`). */
  notice(text: string, admins: readonly string[]): void;
}> {
  await deps.store.migrate([chatIntegrationsMigration, chatLinkIssuerMigration, chatLinkCodesMigration]);
  const now = deps.options?.now ?? (() => new Date());
  const store = new ChatIntegrationStore(deps.store, deps.secrets ?? createStoreSecretStore(deps.store), now);
  const slack = new SlackIntegration({
    runtime: deps.runtime,
    store,
    users: deps.users,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.options?.slackApiUrl ? { slackApiUrl: deps.options.slackApiUrl } : {}),
    ...(deps.options?.publicUrl ? { publicUrl: deps.options.publicUrl } : {}),
    ...(deps.options?.changeHoldMs !== undefined ? { changeHoldMs: deps.options.changeHoldMs } : {}),
    ...(deps.options?.linkHoldMs !== undefined ? { linkHoldMs: deps.options.linkHoldMs } : {}),
    now,
  });
  const teams = new TeamsIntegration({
    store,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.options?.publicUrl ? { publicUrl: deps.options.publicUrl } : {}),
  });
  const unsubscribe = deps.runtime.events.subscribe('*', (event) => {
    slack.onEvent(event);
    teams.onEvent(event);
  });
  await slackInteractivityRoute(app, store, slack);
  const drain = async () => {
    await Promise.all([slack.drain(), teams.drain()]);
  };
  app.addHook('onClose', async () => {
    unsubscribe();
    await drain();
  });
  const { audit } = deps;
  return {
    privateRoutes: (privateApp, catalog) => {
      chatIntegrationRoutes(privateApp, catalog, { store, users: deps.users, audit, now });
      chatTestRoutes(privateApp, catalog, { store, slack, publicUrl: deps.options?.publicUrl });
      chatLinkRoutes(privateApp, catalog, { store, slack, audit, now });
    },
    drain,
    notice: (text, admins) => slack.notice(text, admins),
  };
}
