import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import type { Identity } from '../../core/identity/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { ChatIntegrationStore, ChatUserLink, SlackSettings } from './chat-integration-store.ts';
import { IntegrationErrors } from './integration-errors.ts';
import { SLACK, type SlackIntegration } from './slack/slack-integration.ts';

/** How long a link code stands, and how many wrong codes end it. */
const CODE_TTL_MS = 10 * 60_000;
const MAX_WRONG_CODES = 5;

const requestBody = z
  .object({ slackUserId: z.string().trim().max(40).describe('Your Slack member id (U…; profile → ⋮ → Copy member ID)') })
  .strict();
const confirmBody = z.object({ code: z.string().trim().max(20).describe('The code opsgate sent you in Slack') }).strict();

/** Only the person signed in changes their link, never a token someone else issued for them. */
function ownSignIn(identity: Identity): Identity {
  if (identity.credentialIssuedBy) throw IntegrationErrors.CHAT_LINK_NEEDS_OWN_SIGN_IN({ issuer: identity.credentialIssuedBy });
  return identity;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A person links their own Slack account: signed in to opsgate, they name their member id; the bot
 * sends a one-time code to that member's direct messages; they enter it here. A link made this way
 * is theirs (`linked_by` = themselves), so no hold applies to it, unlike one an admin sets.
 */
export function chatLinkRoutes(
  app: FastifyInstance,
  catalog: ApiCatalog,
  deps: { store: ChatIntegrationStore; slack: SlackIntegration; audit: AuditLog; now: () => Date },
): void {
  const { store, slack, audit, now } = deps;
  /** One audit event per link change, the same shape whoever and whatever changed it. */
  const linkChanged = (
    identity: Identity,
    before: ChatUserLink | undefined,
    slackUserId: string,
    extra: { confirmedInSlack?: true } = {},
  ) =>
    audit.append({
      type: 'chat_link_changed',
      actor: userActor(identity.username),
      payload: {
        provider: 'slack',
        username: identity.username,
        from: { slackUserId: before?.externalId ?? '', email: before?.email ?? '' },
        to: { slackUserId, email: '' },
        by: identity.username,
        via: identity.channel ?? 'rest',
        ...extra,
      },
    });
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/me/chat/slack/link',
      summary: 'My Slack link: the member it points to, who set it, and a code waiting to be entered.',
      tag: 'auth',
    },
    async ({ request }) => {
      const { identity } = request;
      const link = (await store.links(SLACK)).find((candidate) => candidate.userId === identity.userId);
      const pending = await store.offer(SLACK, identity.userId);
      const waiting = pending && Date.parse(pending.expiresAt) > now().getTime() && pending.attempts < MAX_WRONG_CODES;
      return {
        slackEnabled: Boolean((await store.settings<SlackSettings>('slack'))?.botToken),
        linked: link
          ? {
              slackUserId: link.externalId ?? '',
              email: link.email ?? '',
              linkedAt: link.linkedAt,
              linkedBy: link.linkedBy ?? '',
              yours: link.linkedBy === identity.username,
            }
          : null,
        pending: waiting ? { slackUserId: pending.externalId, expiresAt: pending.expiresAt } : null,
      };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'DELETE',
      path: '/api/me/chat/slack/link',
      summary: 'Unlink my Slack account: presses from it no longer decide anything as me.',
      tag: 'auth',
    },
    async ({ request }) => {
      const identity = ownSignIn(request.identity);
      const before = (await store.links(SLACK)).find((link) => link.userId === identity.userId);
      await store.dropOffer(SLACK, identity.userId);
      if (!before) return { unlinked: false };
      await store.link(SLACK, identity.userId, {}, identity.username);
      await linkChanged(identity, before, '');
      return { unlinked: true };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/me/chat/slack/link',
      summary: 'Link my Slack account: opsgate sends a code to it in Slack.',
      tag: 'auth',
      body: requestBody,
    },
    async ({ request, body }) => {
      const identity = ownSignIn(request.identity);
      if (!/^[UW][A-Z0-9]{2,}$/.test(body.slackUserId))
        throw IntegrationErrors.CHAT_SETTINGS_INVALID({
          detail: 'A Slack member id starts with U or W (Slack: profile → ⋮ → Copy member ID).',
        });
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const expiresAt = new Date(now().getTime() + CODE_TTL_MS).toISOString();
      await store.offerLink(SLACK, identity.userId, { externalId: body.slackUserId, codeHash: sha256(code), expiresAt });
      if (!(await slack.sendLinkCode(body.slackUserId, identity.username, code))) {
        await store.dropOffer(SLACK, identity.userId);
        throw IntegrationErrors.SLACK_NOT_CONFIGURED();
      }
      await audit.append({
        type: 'chat_link_requested',
        actor: userActor(identity.username),
        payload: { provider: 'slack', username: identity.username, slackUserId: body.slackUserId, expiresAt },
      });
      return { sentTo: body.slackUserId, expiresAt };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/me/chat/slack/link/confirm',
      summary: 'Confirm the link to my Slack account with the code Slack showed me.',
      tag: 'auth',
      body: confirmBody,
    },
    async ({ request, body }) => {
      const identity = ownSignIn(request.identity);
      const pending = await store.offer(SLACK, identity.userId);
      if (!pending) throw IntegrationErrors.CHAT_LINK_CODE_INVALID({ detail: 'no link was asked for' });
      if (Date.parse(pending.expiresAt) <= now().getTime()) throw IntegrationErrors.CHAT_LINK_CODE_INVALID({ detail: 'it expired' });
      if (pending.attempts >= MAX_WRONG_CODES) throw IntegrationErrors.CHAT_LINK_CODE_INVALID({ detail: 'too many wrong codes' });
      const given = Buffer.from(sha256(body.code));
      if (!timingSafeEqual(given, Buffer.from(pending.codeHash))) {
        await store.countWrongCode(SLACK, identity.userId);
        throw IntegrationErrors.CHAT_LINK_CODE_INVALID({ detail: 'it does not match' });
      }
      const before = (await store.links(SLACK)).find((link) => link.userId === identity.userId);
      await store.link(SLACK, identity.userId, { externalId: pending.externalId }, identity.username);
      await store.dropOffer(SLACK, identity.userId);
      await linkChanged(identity, before, pending.externalId, { confirmedInSlack: true });
      return { linked: pending.externalId };
    },
  );
}
