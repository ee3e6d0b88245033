import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Runtime } from '../../core/runtime/runtime-api.ts';
import type { Decision } from '../../core/runtime/types.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import type { SessionQuota } from '../session-quota.ts';

const sessionParams = z.object({ sessionId: z.string().min(1).max(100).describe('Session id (uuid)') });

const startBody = z
  .object({
    agent: z.string().min(1).max(64),
    pillar: z.string().min(1).max(64).optional(),
    title: z.string().max(200).optional(),
    options: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Per-session switches, e.g. { "hostId": 3 } or { "agentMode": true, "autoApprove": true }'),
  })
  .strict();

const messageBody = z.object({ text: z.string().trim().min(1, 'the message is empty').max(20_000) }).strict();

const callId = z.string().min(1).max(200);
/** The person's answer to the pending interrupt. */
const decisionBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('approve'), callId }).strict(),
  z.object({ type: z.literal('reject'), callId, reason: z.string().max(2000).optional() }).strict(),
  z
    .object({
      type: z.literal('modify'),
      callId,
      args: z.record(z.string(), z.unknown()).describe('The edited arguments; validated again before they can be approved'),
    })
    .strict(),
  z
    .object({
      type: z.literal('answer'),
      callId,
      answer: z.union([z.enum(['yes', 'no', 'skip']), z.object({ custom: z.string().min(1).max(5000) }).strict()]),
    })
    .strict(),
  z.object({ type: z.literal('continue'), callId }).strict(),
  z
    .object({ type: z.literal('replan'), callId })
    .strict()
    .describe('Void an approval that can no longer run (see …/readiness) and let the agent plan again'),
  z
    .object({ type: z.literal('withdraw'), callId })
    .strict()
    .describe('The requester takes a pending approval back before anyone decided it'),
]);

const approvalParams = z.object({
  sessionId: z.string().min(1).max(100).describe('Session id (uuid)'),
  callId: callId.describe('The pending call'),
});

const feedbackBody = z
  .object({
    rating: z.union([z.literal(1), z.literal(-1)]).describe('1 = thumbs up, -1 = thumbs down'),
    target: z.string().max(200).optional().describe('A tool call id or message seq; absent for the whole session'),
    comment: z.string().max(5000).optional(),
  })
  .strict();

const listQuery = z.object({
  agent: z.string().max(64).optional(),
  all: z.enum(['true', 'false']).optional().describe("Approvers and admins: every user's sessions"),
});
const eventsQuery = z.object({ after: z.coerce.number().int().min(0).default(0).describe('Return events with seq greater than this') });

/**
 * Sessions, messages, decisions and feedback. The runtime checks that the caller may act on each
 * session (owner; approver may decide others' sessions; admin everything).
 *
 * POST …/messages and …/decisions answer when the turn stops (final answer, interrupt or step
 * limit) with the TurnResult; while it runs, every step streams over the session's WebSocket.
 */
export function sessionRoutes(app: FastifyInstance, catalog: ApiCatalog, runtime: Runtime, quota?: SessionQuota): void {
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/agents', summary: 'The agents this server runs, with their tools and phases.', tag: 'sessions' },
    async () => ({
      agents: runtime.agents(),
    }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'POST', path: '/api/sessions', summary: 'Start a session with an agent.', tag: 'sessions', body: startBody },
    async ({ body, request, reply }) => {
      await quota?.check(request.identity);
      const session = await runtime.startSession({
        agent: body.agent,
        identity: request.identity,
        ...(body.pillar ? { pillar: body.pillar } : {}),
        ...(body.title ? { title: body.title } : {}),
        ...(body.options ? { options: body.options } : {}),
      });
      void reply.status(201);
      return session;
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/sessions',
      summary: "Your sessions (approvers/admins: everyone's with all=true).",
      tag: 'sessions',
      query: listQuery,
    },
    async ({ query, request }) => ({
      sessions: await runtime.listSessions(request.identity, { ...(query.agent ? { agent: query.agent } : {}), all: query.all === 'true' }),
    }),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/sessions/:sessionId',
      summary: 'One session: messages, tool calls, the pending interrupt.',
      tag: 'sessions',
      params: sessionParams,
    },
    async ({ params, request }) => runtime.getSession(params.sessionId, request.identity),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/sessions/:sessionId/events',
      summary: 'Stored events after a sequence number (for clients that poll or resume).',
      tag: 'sessions',
      params: sessionParams,
      query: eventsQuery,
    },
    async ({ params, query, request }) => {
      await runtime.getSession(params.sessionId, request.identity);
      return { events: await runtime.events.since(params.sessionId, query.after) };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/sessions/:sessionId/messages',
      summary: 'Send a message; runs one turn and returns the TurnResult when it stops.',
      tag: 'sessions',
      params: sessionParams,
      body: messageBody,
    },
    async ({ params, body, request }) => runtime.send(params.sessionId, body.text, request.identity),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/sessions/:sessionId/decisions',
      summary:
        'Decide the pending interrupt: approve, reject (with reason), modify (edited args), replan (a stale approval), withdraw (the requester takes it back), answer (yes/no/skip/custom) or continue.',
      tag: 'sessions',
      params: sessionParams,
      body: decisionBody,
    },
    async ({ params, body, request }) => runtime.decide(params.sessionId, body as Decision, request.identity),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/sessions/:sessionId/approvals/:callId/readiness',
      summary:
        'Whether the pending approval can still run as shown (after a restart its state may be gone); when not, why in plain words. Changes nothing.',
      tag: 'sessions',
      params: approvalParams,
    },
    async ({ params, request }) => runtime.approvalReadiness(params.sessionId, params.callId, request.identity),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/sessions/:sessionId/feedback',
      summary: 'Thumbs up/down on the session or one step, with an optional comment (AR-10).',
      tag: 'sessions',
      params: sessionParams,
      body: feedbackBody,
    },
    async ({ params, body, request }) => {
      await runtime.addFeedback(params.sessionId, request.identity, {
        rating: body.rating,
        ...(body.target ? { target: body.target } : {}),
        ...(body.comment ? { comment: body.comment } : {}),
      });
      return { ok: true };
    },
  );
}
