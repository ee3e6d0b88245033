import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Identity } from '../../core/identity/index.ts';
import type { PendingApproval, Runtime } from '../../core/runtime/index.ts';
import { explainedDecisionError } from '../../gateway/decision-errors.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';
import { ServerErrors } from '../server-errors.ts';

const callParams = z.object({ callId: z.string().min(1).max(200) });
const historyQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).optional() });
const rejectBody = z.object({ reason: z.string().trim().max(2000).optional() }).strict();
const approveBody = z.object({}).strict();

async function findPending(runtime: Runtime, callId: string, actor: Identity): Promise<PendingApproval> {
  const found = (await runtime.pendingApprovals(actor)).find((item) => item.interrupt.callId === callId);
  if (!found) throw ServerErrors.APPROVAL_NOT_FOUND({ callId });
  return found;
}

/** The approver's inbox: what waits (and for whom), the history, and approve / reject by call id. */
export function approvalRoutes(app: FastifyInstance, catalog: ApiCatalog, runtime: Runtime): void {
  // A restart can void what waits (an open sandbox transaction dies with its process). The inbox
  // polls every few seconds and may never see the server down, so it notices a new process here.
  const serverInstance = randomUUID();
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/approvals',
      summary:
        'Calls waiting for approval in the sessions you may see; `waitingForMe` counts those the policy lets you approve; `serverInstance` changes when the server process restarts.',
      tag: 'approvals',
    },
    async ({ request }) => {
      const pending = await runtime.pendingApprovals(request.identity);
      return { pending, waitingForMe: pending.filter((item) => item.mayApprove).length, serverInstance };
    },
  );
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/approvals/history', summary: 'Decided approvals, newest first.', tag: 'approvals', query: historyQuery },
    async ({ query, request }) => ({ decided: await runtime.approvalHistory(request.identity, query.limit) }),
  );
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/approvals/:callId', summary: 'One pending approval.', tag: 'approvals', params: callParams },
    async ({ params, request }) => findPending(runtime, params.callId, request.identity),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/approvals/:callId/approve',
      summary: 'Approve a pending call (403 naming who can approve when the policy refuses you).',
      tag: 'approvals',
      params: callParams,
      body: approveBody,
    },
    async ({ params, request }) => {
      const pending = await findPending(runtime, params.callId, request.identity);
      return runtime.decide(pending.sessionId, { type: 'approve', callId: params.callId }, request.identity).catch((error: unknown) => {
        throw explainedDecisionError(error);
      });
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/approvals/:callId/reject',
      summary: 'Reject a pending call, with a reason.',
      tag: 'approvals',
      params: callParams,
      body: rejectBody,
    },
    async ({ params, body, request }) => {
      const pending = await findPending(runtime, params.callId, request.identity);
      return runtime.decide(
        pending.sessionId,
        { type: 'reject', callId: params.callId, ...(body.reason ? { reason: body.reason } : {}) },
        request.identity,
      );
    },
  );
}
