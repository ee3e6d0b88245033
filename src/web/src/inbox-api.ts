import type { ApprovalInterrupt } from '../../core/runtime/types.ts';
import { request, type TurnResult } from './api.ts';

/** A call waiting for approval (GET /api/approvals). */
export interface PendingApprovalView {
  readonly sessionId: string;
  readonly agent: string;
  readonly title: string;
  readonly interrupt: ApprovalInterrupt;
  readonly mayApprove: boolean;
}

export interface DecidedApprovalView {
  readonly sessionId: string;
  readonly agent: string;
  readonly callId: string;
  readonly tool: string;
  readonly risk: string;
  readonly status: string;
  readonly requestedBy: string;
  readonly approvedBy?: string;
  /** How it was decided (`{ type, by, reason }`), as the runtime stored it. */
  readonly decision?: unknown;
  readonly decidedAt: string;
}

export const inboxApi = {
  pending: () => request<{ pending: PendingApprovalView[]; waitingForMe: number; serverInstance: string }>('GET', '/api/approvals'),
  history: () => request<{ decided: DecidedApprovalView[] }>('GET', '/api/approvals/history'),
  approve: (callId: string) => request<TurnResult>('POST', `/api/approvals/${encodeURIComponent(callId)}/approve`, {}),
  reject: (callId: string, reason: string) =>
    request<TurnResult>('POST', `/api/approvals/${encodeURIComponent(callId)}/reject`, reason ? { reason } : {}),
};
