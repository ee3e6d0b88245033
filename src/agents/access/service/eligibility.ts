import type { AccessRow, CatalogUser } from './catalog-repository.ts';
import { AccessServiceErrors } from './errors.ts';

/** True when the access is tagged with one of the user's teams (an access with no team tag is nobody's). */
function isEligible(userTeams: readonly string[], accessTeams: readonly string[]): boolean {
  return accessTeams.some((team) => userTeams.includes(team));
}

/** Throws `ACCESS_NOT_ELIGIBLE` (403) unless the user may hold the access. */
export function assertEligible(user: CatalogUser, access: AccessRow): void {
  if (isEligible(user.teams, access.teams)) return;
  throw AccessServiceErrors.ACCESS_NOT_ELIGIBLE({
    accessName: access.name,
    accessTeams: access.teams.length > 0 ? access.teams.join(', ') : 'no',
    username: user.username,
    userTeams: user.teams.length > 0 ? `the ${user.teams.join(', ')} team(s)` : 'no team',
  });
}

/** Throws `ACCESS_DURATION_TOO_LONG` (400) when the asked duration exceeds the access's renewal period. */
export function assertDuration(access: AccessRow, durationDays: number | null): void {
  if (durationDays === null || access.renewal_period === null || durationDays <= access.renewal_period) return;
  throw AccessServiceErrors.ACCESS_DURATION_TOO_LONG({ durationDays, accessName: access.name, renewalPeriod: access.renewal_period });
}
