import type { PolicyPrincipal } from '../policy/index.ts';

/** Where people's teams come from (e.g. the claims of their last single sign-on). */
export interface TeamDirectory {
  /** Teams per username; a person the directory does not know is in no team. */
  teamsOf(usernames: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
}

/** The people with the teams the directory knows for them (no directory: no teams). */
export async function withTeams(directory: TeamDirectory | undefined, people: readonly PolicyPrincipal[]): Promise<PolicyPrincipal[]> {
  if (!directory || people.length === 0) return [...people];
  const teams = await directory.teamsOf([...new Set(people.map((person) => person.username))]);
  return people.map((person) => ({ ...person, teams: teams.get(person.username) ?? [] }));
}
