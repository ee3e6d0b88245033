import { type AuditLog, userActor } from '../audit/index.ts';
import { CoreErrors } from '../errors/index.ts';
import type { Identity } from '../identity/index.ts';
import { type Store, UnitOfWork } from '../store/index.ts';
import type { SessionEvents } from './events.ts';

export interface FeedbackDeps {
  readonly store: Store;
  readonly audit: AuditLog;
  readonly events: SessionEvents;
  readonly now: () => Date;
}

export interface FeedbackInput {
  readonly rating: 1 | -1;
  readonly target?: string;
  readonly comment?: string;
}

/** Stores a thumbs up or down on a session or one step of it, audited as `feedback`. The caller checked that `actor` may read the session. */
export async function recordFeedback(deps: FeedbackDeps, sessionId: string, actor: Identity, input: FeedbackInput): Promise<void> {
  if (input.rating !== 1 && input.rating !== -1)
    throw CoreErrors.BAD_REQUEST({ detail: 'rating must be 1 (thumbs up) or -1 (thumbs down)' });
  const uow = new UnitOfWork();
  const feedback = {
    session_id: sessionId,
    user_id: actor.userId,
    target: input.target ?? null,
    rating: input.rating,
    comment: input.comment ?? null,
    created_at: deps.now().toISOString(),
  };
  uow.write(async (trx) => {
    await trx.insertInto('feedback').values(feedback).execute();
  });
  deps.audit.record(uow, {
    sessionId,
    type: 'feedback',
    actor: userActor(actor.username),
    payload: { rating: input.rating, target: input.target ?? null, comment: input.comment ?? null },
  });
  deps.events.record(uow, sessionId, 'feedback', { rating: input.rating, target: input.target ?? null });
  await uow.commit(deps.store);
}
