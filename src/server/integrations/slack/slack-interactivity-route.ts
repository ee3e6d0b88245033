import type { FastifyInstance } from 'fastify';
import type { ChatIntegrationStore, SlackSettings } from '../chat-integration-store.ts';
import { IntegrationErrors } from '../integration-errors.ts';
import { APPROVE_ACTION, REJECT_ACTION } from './slack-blocks.ts';
import type { SlackBlockAction, SlackIntegration } from './slack-integration.ts';
import { SlackRequestVerifier } from './slack-request-verifier.ts';

/** Where the Slack app's "Interactivity & Shortcuts" Request URL points. */
export const SLACK_ACTIONS_PATH = '/api/integrations/slack/actions';

function readAction(payload: unknown): SlackBlockAction {
  const p = (payload ?? {}) as {
    type?: string;
    user?: { id?: string; team_id?: string };
    team?: { id?: string };
    actions?: Array<{ action_id?: string; value?: string }>;
    response_url?: string;
  };
  if (p.type !== 'block_actions') throw IntegrationErrors.SLACK_PAYLOAD_INVALID({ detail: `type ${String(p.type)}` });
  const action = p.actions?.[0];
  if (!action || (action.action_id !== APPROVE_ACTION && action.action_id !== REJECT_ACTION))
    throw IntegrationErrors.SLACK_PAYLOAD_INVALID({ detail: `action ${String(action?.action_id)}` });
  let value: { sessionId?: unknown; callId?: unknown };
  try {
    value = JSON.parse(action.value ?? '') as typeof value;
  } catch {
    throw IntegrationErrors.SLACK_PAYLOAD_INVALID({ detail: 'the button value is not the one opsgate sent' });
  }
  if (typeof value.sessionId !== 'string' || typeof value.callId !== 'string' || !p.user?.id)
    throw IntegrationErrors.SLACK_PAYLOAD_INVALID({ detail: 'the button value or the user is missing' });
  const teamId = p.user.team_id ?? p.team?.id;
  return {
    userId: p.user.id,
    ...(teamId ? { teamId } : {}),
    actionId: action.action_id,
    value: { sessionId: value.sessionId, callId: value.callId },
    ...(p.response_url ? { responseUrl: p.response_url } : {}),
  };
}

/**
 * The public endpoint Slack posts button presses to. Slack signs the raw form body, so it is read
 * as text in its own context (no other route sees this parser); the signature and timestamp are
 * checked before anything else, and the press is acknowledged at once (Slack wants an answer
 * within 3 seconds) while the decision runs beside it.
 */
export async function slackInteractivityRoute(app: FastifyInstance, store: ChatIntegrationStore, slack: SlackIntegration): Promise<void> {
  const verifier = new SlackRequestVerifier();
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(SLACK_ACTIONS_PATH, async (request, reply) => {
      const settings = await store.settings<SlackSettings>('slack');
      if (!settings?.signingSecret) throw IntegrationErrors.SLACK_NOT_CONFIGURED();
      const raw = typeof request.body === 'string' ? request.body : '';
      const header = (name: string) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      if (!(await verifier.verify(settings.signingSecret, raw, header('x-slack-signature'), header('x-slack-request-timestamp'))))
        throw IntegrationErrors.SLACK_SIGNATURE_INVALID();
      let payload: unknown;
      try {
        payload = JSON.parse(new URLSearchParams(raw).get('payload') ?? '');
      } catch {
        throw IntegrationErrors.SLACK_PAYLOAD_INVALID({ detail: 'no JSON payload field' });
      }
      slack.handleAction(readAction(payload));
      return reply.code(200).send();
    });
  });
}
