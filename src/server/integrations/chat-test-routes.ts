import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { ChatIntegrationStore, SlackSettings, TeamsSettings } from './chat-integration-store.ts';
import { IntegrationErrors } from './integration-errors.ts';
import { linkAddress } from './link-address.ts';
import { SLACK, type SlackIntegration } from './slack/slack-integration.ts';

const TEST_TEXT = 'opsgate test message: approval requests will arrive here.';

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

function inboxLink(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/#/inbox`;
}

/** What the admin reads after a test: where it went and whether it carried the link. */
function linkNote(publicUrl: string): string {
  return publicUrl
    ? ` It links to ${inboxLink(publicUrl)}.`
    : ' It carries no link: save the opsgate address above (or set OPSGATE_PUBLIC_URL) so requests link to opsgate.';
}

/** A card like the requests', with the same "Review and decide" link, so the admin sees what approvers will get. */
function teamsTestMessage(publicUrl: string): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [{ type: 'TextBlock', text: TEST_TEXT, wrap: true, weight: 'Bolder' }],
          ...(publicUrl ? { actions: [{ type: 'Action.OpenUrl', title: 'Review and decide in opsgate', url: inboxLink(publicUrl) }] } : {}),
        },
      },
    ],
  };
}

/**
 * "Send test message" for Slack and Teams: an admin learns that the settings work (and whether
 * messages carry a link) before the first real request, not from it (issue 31, item 3).
 */
export function chatTestRoutes(
  app: FastifyInstance,
  catalog: ApiCatalog,
  deps: { store: ChatIntegrationStore; slack: SlackIntegration; publicUrl: string | undefined },
): void {
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/admin/chat/slack/test',
      summary: 'Admins: post a test message with the saved Slack settings.',
      tag: 'admin',
    },
    async ({ request }) => {
      requireAdmin(request);
      const settings = await deps.store.settings<SlackSettings>('slack');
      if (!settings?.botToken) throw IntegrationErrors.SLACK_NOT_CONFIGURED();
      const own = (await deps.store.links(SLACK)).find((link) => link.userId === request.identity.userId)?.externalId;
      const channel = settings.channel || own;
      if (!channel)
        throw IntegrationErrors.CHAT_TEST_FAILED({
          detail: 'there is no channel set and your own Slack account is not linked by member id, so there is nowhere to send it',
        });
      const publicUrl = await linkAddress(deps.store, deps.publicUrl);
      const client = await deps.slack.client(settings);
      try {
        await client.chat.postMessage({
          channel,
          text: TEST_TEXT,
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: TEST_TEXT } },
            ...(publicUrl
              ? [
                  {
                    type: 'context' as const,
                    elements: [{ type: 'mrkdwn' as const, text: `<${inboxLink(publicUrl)}|Open the approvals in opsgate>` }],
                  },
                ]
              : []),
          ],
          unfurl_links: false,
        });
      } catch (error) {
        const slackError = (error as { data?: { error?: string } }).data?.error;
        throw IntegrationErrors.CHAT_TEST_FAILED({
          detail: `Slack answered ${slackError ?? (error instanceof Error ? error.message : 'an error')}`,
        });
      }
      return {
        ok: true,
        message: `Sent a test message to ${settings.channel ? `channel ${channel}` : 'your direct messages'}.${linkNote(publicUrl)}`,
      };
    },
  );
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/admin/chat/teams/test', summary: 'Admins: post a test card to the saved Teams webhook.', tag: 'admin' },
    async ({ request }) => {
      requireAdmin(request);
      const teams = await deps.store.settings<TeamsSettings>('teams');
      if (!teams?.webhookUrl) throw IntegrationErrors.CHAT_TEST_FAILED({ detail: 'no Teams webhook is saved' });
      const publicUrl = await linkAddress(deps.store, deps.publicUrl);
      let status: number;
      try {
        const response = await fetch(teams.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(teamsTestMessage(publicUrl)),
          signal: AbortSignal.timeout(10_000),
        });
        await response.body?.cancel();
        status = response.status;
      } catch (error) {
        throw IntegrationErrors.CHAT_TEST_FAILED({
          detail: `the webhook could not be reached (${error instanceof Error ? error.message : 'no answer'})`,
        });
      }
      if (status < 200 || status >= 300) throw IntegrationErrors.CHAT_TEST_FAILED({ detail: `the Teams webhook answered ${status}` });
      return { ok: true, message: `Sent a test card to the Teams channel.${linkNote(publicUrl)}` };
    },
  );
}
