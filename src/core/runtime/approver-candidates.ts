import { peopleChangesIn, UserRepository } from '../identity/users.ts';
import type { PolicyPrincipal } from '../policy/index.ts';
import type { Store } from '../store/index.ts';

/**
 * How long the list of approver candidates is reused. Each turn and each decision asks who may
 * approve; reading every account for that cost two store round trips per approval. A change made
 * in this process shows at once; one made by another replica within this time. The list only
 * names who may approve: whether the person deciding may is asked of the policy with their own
 * identity, never with this list.
 */
export const APPROVER_CANDIDATES_TTL_MS = 5_000;

/** Everyone with an enabled account, as the policy sees them: the people it is asked about when naming who can approve. */
async function listApproverCandidates(store: Store): Promise<readonly PolicyPrincipal[]> {
  const users = await new UserRepository(store).list();
  return users.filter((user) => !user.disabled).map((user) => ({ username: user.username, roles: user.roles }));
}

/** `listApproverCandidates`, reused until this process changes people or the lifetime ends. */
export function cachedApproverCandidates(store: Store, now: () => number = Date.now): () => Promise<readonly PolicyPrincipal[]> {
  let cached: { list: Promise<readonly PolicyPrincipal[]>; changes: number; until: number } | undefined;
  return () => {
    const changes = peopleChangesIn(store);
    if (!cached || cached.changes !== changes || now() >= cached.until) {
      const list = listApproverCandidates(store);
      cached = { list, changes, until: now() + APPROVER_CANDIDATES_TTL_MS };
      // A failed read is not kept: the next question reads again.
      list.catch(() => {
        if (cached?.list === list) cached = undefined;
      });
    }
    return cached.list;
  };
}
