import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import type { UserRepository } from '../../core/identity/users.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { ChatCommonSettings, ChatIntegrationStore, SlackSettings, TeamsSettings } from './chat-integration-store.ts';
import { IntegrationErrors } from './integration-errors.ts';
import { SLACK } from './slack/slack-integration.ts';

const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => value === '' || /^https?:\/\/[^\s]+$/.test(value), 'an http(s) address such as https://opsgate.example.com');
const slackBody = z
  .object({
    botToken: z.string().trim().max(500).optional().describe('xoxb-… (kept when absent)'),
    signingSecret: z.string().trim().max(200).optional().describe('From the app\'s "Basic Information" (kept when absent)'),
    channel: z.string().trim().max(100).default('').describe("A channel id (C…); empty: each eligible approver's DM"),
    enabled: z.boolean().default(true),
  })
  .strict();
const teamsBody = z.object({ webhookUrl: httpUrl.describe('The incoming webhook of a Teams channel; empty: off') }).strict();
const commonBody = z.object({ publicUrl: httpUrl.describe('The address people open opsgate at, for links in messages') }).strict();
const linkParams = z.object({ username: z.string().min(1).max(64) });
const linkBody = z
  .object({
    slackUserId: z.string().trim().max(40).default('').describe('Slack member id (U…); empty: by e-mail'),
    email: z.string().trim().max(200).default('').describe('An e-mail Slack must have confirmed for this person'),
  })
  .strict();

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/** Audit event types of chat set-up: who changed what, from what to what, never a secret's value. */
const CHAT_AUDIT_EVENT_TYPES = ['chat_settings_changed', 'chat_link_changed', 'chat_link_requested'] as const;

/** The admin who made a change, and the issuer of the credential he used when it was not his own. */
function changedBy(request: FastifyRequest): { by: string; credentialIssuedBy?: string; via: string } {
  const { identity } = request;
  return {
    by: identity.username,
    via: identity.channel ?? 'rest',
    ...(identity.credentialIssuedBy ? { credentialIssuedBy: identity.credentialIssuedBy } : {}),
  };
}

/**
 * Admins set up Slack and Teams approvals; secrets go in (encrypted at rest) and never come back
 * out. Every change is audited, and who set a Slack link or the Slack app's secrets is recorded:
 * a press decided through either within the hold that follows counts as a credential that person
 * issued (see `SlackIntegration`).
 */
export function chatIntegrationRoutes(
  app: FastifyInstance,
  catalog: ApiCatalog,
  deps: { store: ChatIntegrationStore; users: UserRepository; audit: AuditLog; now: () => Date },
): void {
  const { store, users, audit, now } = deps;
  const record = (request: FastifyRequest, type: (typeof CHAT_AUDIT_EVENT_TYPES)[number], payload: Record<string, unknown>) =>
    audit.append({ type, actor: userActor(request.identity.username), payload: { ...payload, ...changedBy(request) } });
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/admin/chat',
      summary: 'Admins: how Slack and Teams approvals are set up (secrets only as "set").',
      tag: 'admin',
    },
    async ({ request }) => {
      requireAdmin(request);
      const slack = await store.settings<SlackSettings>('slack');
      const teams = await store.settings<TeamsSettings>('teams');
      const common = await store.settings<ChatCommonSettings>('common');
      const links = await store.links(SLACK);
      const people = await users.list();
      return {
        publicUrl: common?.publicUrl ?? '',
        slack: {
          enabled: Boolean(slack?.botToken),
          channel: slack?.channel ?? '',
          botTokenSet: Boolean(slack?.botToken),
          signingSecretSet: Boolean(slack?.signingSecret),
        },
        teams: { enabled: Boolean(teams?.webhookUrl) },
        links: people.map((person) => {
          const link = links.find((l) => l.userId === person.id);
          return { username: person.username, slackUserId: link?.externalId ?? '', email: link?.email ?? '' };
        }),
      };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/admin/chat/slack',
      summary: 'Admins: set up (or turn off) Slack approvals.',
      tag: 'admin',
      body: slackBody,
    },
    async ({ request, body }) => {
      requireAdmin(request);
      const current = await store.settings<SlackSettings>('slack');
      if (!body.enabled) {
        await store.saveSettings('slack', undefined);
        await record(request, 'chat_settings_changed', { provider: 'slack', enabled: false, wasEnabled: Boolean(current?.botToken) });
        return { ok: true };
      }
      const botToken = body.botToken || current?.botToken || '';
      const signingSecret = body.signingSecret || current?.signingSecret || '';
      if (!/^xox[bp]-/.test(botToken))
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({
          detail: 'The bot token starts with "xoxb-": copy it from your Slack app\'s "OAuth & Permissions" page.',
        });
      if (signingSecret.length < 16)
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({
          detail: 'Paste the signing secret from your Slack app\'s "Basic Information" page.',
        });
      if (body.channel && !/^[CGDU][A-Z0-9]{2,}$/.test(body.channel))
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({
          detail:
            'Give the channel id (it starts with C, e.g. C0123ABCD; in Slack: channel details → bottom), or leave it empty for direct messages.',
        });
      const changedSecrets = [
        ...(botToken !== current?.botToken ? ['botToken'] : []),
        ...(signingSecret !== current?.signingSecret ? ['signingSecret'] : []),
      ];
      const credentialsChanged =
        changedSecrets.length > 0
          ? { credentialsChangedBy: request.identity.username, credentialsChangedAt: now().toISOString() }
          : {
              ...(current?.credentialsChangedBy ? { credentialsChangedBy: current.credentialsChangedBy } : {}),
              ...(current?.credentialsChangedAt ? { credentialsChangedAt: current.credentialsChangedAt } : {}),
            };
      await store.saveSettings('slack', { botToken, signingSecret, channel: body.channel, ...credentialsChanged } satisfies SlackSettings);
      await record(request, 'chat_settings_changed', {
        provider: 'slack',
        enabled: true,
        secretsChanged: changedSecrets,
        channel: { from: current?.channel ?? '', to: body.channel },
      });
      return { ok: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/admin/chat/teams',
      summary: 'Admins: the Teams incoming webhook (empty: off).',
      tag: 'admin',
      body: teamsBody,
    },
    async ({ request, body }) => {
      requireAdmin(request);
      const current = await store.settings<TeamsSettings>('teams');
      await store.saveSettings('teams', body.webhookUrl ? ({ webhookUrl: body.webhookUrl } satisfies TeamsSettings) : undefined);
      // The webhook URL is itself a credential: the audit says it changed, never what it is.
      await record(request, 'chat_settings_changed', {
        provider: 'teams',
        enabled: Boolean(body.webhookUrl),
        secretsChanged: (current?.webhookUrl ?? '') !== body.webhookUrl ? ['webhookUrl'] : [],
      });
      return { ok: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/admin/chat/common',
      summary: 'Admins: the address links in messages open.',
      tag: 'admin',
      body: commonBody,
    },
    async ({ request, body }) => {
      requireAdmin(request);
      const current = await store.settings<ChatCommonSettings>('common');
      await store.saveSettings('common', { publicUrl: body.publicUrl } satisfies ChatCommonSettings);
      await record(request, 'chat_settings_changed', {
        provider: 'common',
        publicUrl: { from: current?.publicUrl ?? '', to: body.publicUrl },
      });
      return { ok: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'PUT',
      path: '/api/admin/chat/slack/links/:username',
      summary: "Admins: link a person's Slack account (member id, or an e-mail Slack confirmed); both empty: unlink.",
      tag: 'admin',
      params: linkParams,
      body: linkBody,
    },
    async ({ request, params, body }) => {
      requireAdmin(request);
      const user = await users.requireByName(params.username);
      if (body.slackUserId && !/^[UW][A-Z0-9]{2,}$/.test(body.slackUserId))
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({
          detail: 'A Slack member id starts with U or W (Slack: profile → ⋮ → Copy member ID).',
        });
      if (body.email && !/^[^\s@]+@[^\s@]+$/.test(body.email))
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({ detail: `"${body.email}" is not an e-mail address.` });
      const before = (await store.links(SLACK)).find((link) => link.userId === user.id);
      await store.link(
        SLACK,
        user.id,
        {
          ...(body.slackUserId ? { externalId: body.slackUserId } : {}),
          ...(body.email ? { email: body.email } : {}),
        },
        request.identity.username,
      );
      await record(request, 'chat_link_changed', {
        provider: 'slack',
        username: user.username,
        from: { slackUserId: before?.externalId ?? '', email: before?.email ?? '' },
        to: { slackUserId: body.slackUserId, email: body.email.toLowerCase() },
      });
      return { ok: true };
    },
  );
}
