import { UserRepository } from '../identity/users.ts';
import type { PolicyPrincipal } from '../policy/index.ts';
import type { Store } from '../store/index.ts';

/** Everyone with an account, as the policy sees them: the people it is asked about when naming who can approve. */
export async function listApproverCandidates(store: Store): Promise<readonly PolicyPrincipal[]> {
  const users = await new UserRepository(store).list();
  return users.map((user) => ({ username: user.username, roles: user.roles }));
}
