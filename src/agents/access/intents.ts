import type { InterpreterAction, InterpreterRules, InterpreterTurn } from '../../core/model/interpreter-rules.ts';
import { eligibleAccesses } from './client/catalog-lookup.ts';
import {
  type CatalogEntry,
  clarifyingQuestion,
  closestAccesses,
  explicitNames,
  isSensitive,
  matchAccess,
} from './matching/access-matching.ts';
import { type GrantTerms, grantTerms } from './matching/request-terms.ts';

type Step = InterpreterTurn['steps'][number];

const YES = /^(y|yes|yes please|yep|yeah|sure|ok|okay|go ahead|do it|please do)[.!]*$/i;
const NO = /^(n|no|nope|no thanks|cancel)[.!]*$/i;
const HELD = /\b(what|which|show|list)\b.*\b(do i have|i have|i hold|my access(es)?)\b|\bmy access(es)?\b/i;
const DISCOVERY = /\b(what|which|show|list|available)\b.*\baccess(es)?\b|\baccess(es)?\b.*\bavailable\b/i;
const TEAM = /\b(?:for|of|on)\s+(?:the\s+)?([a-z][a-z0-9_-]*)\s+team\b|\bteam\s+([a-z][a-z0-9_-]*)\b/i;
/** Giving an access up: "revoke X", "I no longer need X", "remove my X access" (not "I need write access to remove files"). */
const REVOKE = /\b(revoke|give up|no longer need)\b|\bremove\s+my\b/i;
const REQUEST = /\b(need|want|give|grant|request|get me|access to|can i|could i|would like|please)\b/i;

/** "I need …", "give me …", "can I get …": a message that opens a request of its own. */
const NEW_REQUEST =
  /^\s*(?:i\s+(?:also\s+)?(?:need|want|would like)|give me|grant me|get me|can i (?:get|have)|could i (?:get|have))\b\s*\S/i;

/** Marks the agent's own clarifying questions, so the next message is read as an answer to them. */
const CLARIFICATION_OPENERS = [
  'I found multiple ',
  'I found several matching accesses',
  'I could not find an access',
  'There is no access named',
  'None of the accesses open to you',
];

function lastStep(turn: InterpreterTurn): Step | undefined {
  return turn.steps[turn.steps.length - 1];
}

function stepOf(turn: InterpreterTurn, toolName: string): Step | undefined {
  return [...turn.steps].reverse().find((s) => s.toolName === toolName);
}

function catalogFrom(step: Step | undefined): CatalogEntry[] | { error: string } {
  if (!step) return { error: 'the catalog was not read' };
  const output = step.output as unknown;
  if (Array.isArray(output)) return output as CatalogEntry[];
  if (step.isError) return { error: errorText(output) };
  if (output && typeof output === 'object' && 'error' in output) return { error: String((output as { error: unknown }).error) };
  return { error: 'the catalog answer was not understood' };
}

function errorText(output: unknown): string {
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    return String(o.reason ?? o.error ?? o.message ?? JSON.stringify(output));
  }
  return String(output);
}

function describe(access: CatalogEntry): string {
  const renewal = access.renewal_period ? ` (renewal every ${access.renewal_period} days)` : '';
  return `- ${access.name}: ${access.description}${renewal}`;
}

/**
 * A message that opens a request of its own ("I need …", or a catalog name) is a new request,
 * even right after a clarifying question. Gluing it to the earlier request let the earlier target
 * win: after "I need DB_ADMIN" (no such access), "I need access to Jira" got the DB_ADMIN answer
 * again word for word. Short answers ("Production, read only") still answer the question.
 */
function startsNewRequest(text: string): boolean {
  return explicitNames(text).length > 0 || NEW_REQUEST.test(text);
}

/** The request text of this turn: after clarifying questions, the original request plus every answer. */
function requestText(turn: InterpreterTurn): { text: string; answersQuestion: boolean } {
  if (startsNewRequest(turn.userText)) return { text: turn.userText, answersQuestion: false };
  const history = turn.history;
  const parts = [turn.userText];
  let index = history.length - 1;
  while (index >= 1) {
    const assistant = history[index]!;
    const user = history[index - 1]!;
    if (assistant.role !== 'assistant' || user.role !== 'user' || !CLARIFICATION_OPENERS.some((o) => assistant.text.startsWith(o))) break;
    parts.unshift(user.text);
    // The request this chain of answers belongs to starts here; what came before it is another request.
    if (startsNewRequest(user.text)) break;
    index -= 2;
  }
  return { text: parts.join(' '), answersQuestion: parts.length > 1 };
}

function proposalText(access: CatalogEntry, asked: GrantTerms): string {
  const forDays = asked.durationDays !== undefined ? ` for ${asked.durationDays} day${asked.durationDays === 1 ? '' : 's'}` : '';
  if (!isSensitive(access) && forDays === '') return `I found ${access.name} access. Would you like me to grant it?`;
  const terms =
    access.renewal_period !== null && access.renewal_period !== undefined
      ? `It has a renewal period of ${access.renewal_period} days: the grant expires ${asked.durationDays ?? access.renewal_period} days after it is made unless renewed.`
      : 'It has no renewal period: the grant does not expire until it is revoked.';
  return `I found ${access.name} access (${access.description}). ${terms} Would you like me to grant it${forDays}?`;
}

/** After the grant ran (or was rejected): say what happened, and what was granted when the person changed the request. */
function afterGrant(step: Step): InterpreterAction {
  const modified = step.output as { executedWithModifiedArguments?: { access_name?: string }; result?: unknown } | null;
  if (modified?.executedWithModifiedArguments) {
    const changedTo = modified.executedWithModifiedArguments.access_name;
    const said = afterGrant({ ...step, input: modified.executedWithModifiedArguments, output: modified.result });
    return changedTo ? { ...said, text: `The request was changed to ${changedTo}. ${said.text}` } : said;
  }
  const input = (step.input ?? {}) as { access_name?: string };
  const name = input.access_name ?? 'that';
  if (step.isError) {
    const output = step.output as { denied?: boolean; reason?: string } | null;
    if (output?.denied) return { text: `Okay, I did not grant ${name} access.` };
    return { text: `I could not grant ${name} access: ${errorText(step.output)}` };
  }
  const output = step.output as { success?: boolean; access?: { name?: string }; message?: string; detail?: string };
  if (output.success) return { text: `I've granted you ${output.access?.name ?? name} access.` };
  if (output.message === 'User already has this access') return { text: `You already have ${name} access.` };
  return { text: `I could not grant ${name} access: ${output.message ?? 'unknown error'}${output.detail ? ` (${output.detail})` : ''}.` };
}

function discovery(turn: InterpreterTurn): InterpreterAction {
  const team = TEAM.exec(turn.userText);
  const teamName = (team?.[1] ?? team?.[2])?.toLowerCase();
  const listed = stepOf(turn, 'list_available_accesses');
  if (!listed) return { toolCalls: [{ toolName: 'list_available_accesses', input: teamName ? { team: teamName } : {} }] };
  const catalog = catalogFrom(listed);
  if ('error' in catalog) return { text: `I could not read the access catalog: ${catalog.error}` };
  if (catalog.length === 0)
    return { text: teamName ? `The catalog has no accesses tagged for the ${teamName} team.` : 'The access catalog is empty.' };
  const opener = teamName ? `For the ${teamName} team, here are the available accesses:` : 'Here are the available accesses:';
  return { text: `${opener}\n${catalog.map(describe).join('\n')}\nTell me which one you need and I will request it for you.` };
}

function heldAccesses(turn: InterpreterTurn): InterpreterAction {
  const got = stepOf(turn, 'get_user_accesses');
  if (!got) return { toolCalls: [{ toolName: 'get_user_accesses', input: {} }] };
  const output = got.output as { accesses?: CatalogEntry[]; error?: string };
  if (got.isError || !Array.isArray(output?.accesses)) return { text: `I could not read your accesses: ${errorText(got.output)}` };
  if (output.accesses.length === 0) return { text: 'You have no accesses yet.' };
  return { text: `You have these accesses:\n${output.accesses.map(describe).join('\n')}` };
}

function heldStep(turn: InterpreterTurn): { held: Array<{ name: string }>; teams: string[] | undefined } | { error: string } {
  const got = stepOf(turn, 'get_user_accesses');
  const output = got?.output as { accesses?: Array<{ name: string }>; teams?: unknown; error?: string } | undefined;
  if (!got || got.isError || !Array.isArray(output?.accesses)) return { error: errorText(got?.output) };
  const teams = Array.isArray(output.teams) ? output.teams.filter((t): t is string => typeof t === 'string') : undefined;
  return { held: output.accesses, teams };
}

/** The request names production ("production", "prod", a PROD or PRD access name). */
const NAMES_PRODUCTION = /\bprod(uction)?\b|PRO?D\b/i;

/**
 * The nearest accesses the person could ask for (review A5): held ones are no suggestion, and a
 * production access is suggested only to someone who named production ("Jira" offered DB_WRITE_PROD).
 */
function nearest(query: string, eligible: readonly CatalogEntry[], held: ReadonlyArray<{ name: string }> = []): string {
  const production = NAMES_PRODUCTION.test(query);
  const open = eligible.filter(
    (access) => !held.some((h) => h.name === access.name) && (production || !/(^|_)PROD(_|$)/.test(access.name)),
  );
  const names = closestAccesses(query, open).map((s) => `${s.name} (${s.description})`);
  return names.length > 0 ? names.join(', ') : 'none';
}

function request(turn: InterpreterTurn, text: string): InterpreterAction {
  const terms = grantTerms(text);
  const listed = stepOf(turn, 'list_available_accesses');
  if (!listed) return { toolCalls: [{ toolName: 'list_available_accesses', input: {} }] };
  const catalog = catalogFrom(listed);
  if ('error' in catalog) return { text: `I could not read the access catalog: ${catalog.error}` };
  if (!stepOf(turn, 'get_user_accesses')) return { toolCalls: [{ toolName: 'get_user_accesses', input: {} }] };
  const state = heldStep(turn);
  if ('error' in state) return { text: `I could not check your current accesses: ${state.error}` };
  // A catalog that reports no teams (an older remote service) leaves eligibility to the service.
  const eligible = state.teams === undefined ? catalog : eligibleAccesses(catalog, state.teams);
  const teamsText = state.teams && state.teams.length > 0 ? state.teams.join(', ') : 'no team';
  const named = explicitNames(terms.request)
    .map((name) => catalog.find((a) => a.name === name))
    .find((a) => a !== undefined);
  if (named && !eligible.includes(named)) {
    return {
      text: `${named.name} is for the ${(named.teams ?? []).join(', ') || 'no'} team(s) and you are in ${teamsText}, so I cannot request it. None of the accesses open to you is ${named.name}; the nearest are: ${nearest(named.description, eligible, state.held)}.`,
    };
  }
  const match = matchAccess(terms.request, eligible);
  if (match.kind === 'ambiguous') return { text: clarifyingQuestion(match.candidates) };
  if (match.kind === 'unknown') {
    if (explicitNames(terms.request).length > 0)
      return {
        text: `There is no access named ${match.query}. The closest catalog accesses are: ${nearest(match.query, eligible, state.held)}. Which one do you need?`,
      };
    return {
      text: `None of the accesses open to your teams (${teamsText}) fits "${match.query}", so I am not proposing any. The nearest ones are: ${nearest(match.query, eligible, state.held)}. Which one do you need, if any?`,
    };
  }
  const access = match.access;
  if (state.held.some((a) => a.name === access.name)) return { text: `You already have ${access.name} access.` };
  const max = access.renewal_period ?? null;
  if (terms.durationDays !== undefined && max !== null && terms.durationDays > max)
    return { text: `${access.name} lasts at most ${max} days. How many days (${max} or fewer) do you need it for?` };
  return { text: proposalText(access, terms), toolCalls: [{ toolName: 'grant_access_to_user', input: grantInput(access.name, terms) }] };
}

function grantInput(accessName: string, terms: GrantTerms): Record<string, unknown> {
  return {
    access_name: accessName,
    ...(terms.reason !== undefined ? { reason: terms.reason } : {}),
    ...(terms.durationDays !== undefined ? { duration_days: terms.durationDays } : {}),
  };
}

/** "revoke DB_READ_PROD" / "I no longer need production database read": finds the held grant and proposes the revoke. */
function revoke(turn: InterpreterTurn, text: string): InterpreterAction {
  const got = stepOf(turn, 'get_user_accesses');
  if (!got) return { toolCalls: [{ toolName: 'get_user_accesses', input: {} }] };
  const state = heldStep(turn);
  if ('error' in state) return { text: `I could not read your accesses: ${state.error}` };
  const held = state.held as CatalogEntry[];
  if (held.length === 0) return { text: 'You hold no accesses, so there is nothing to revoke.' };
  const match = matchAccess(text.replace(REVOKE, ' '), held);
  if (match.kind !== 'unique') return { text: `Which access should I revoke? You hold: ${held.map((a) => a.name).join(', ')}.` };
  return {
    text: `You hold ${match.access.name}. Would you like me to revoke it?`,
    toolCalls: [{ toolName: 'revoke_access_from_user', input: { access_name: match.access.name } }],
  };
}

function afterRevoke(step: Step): InterpreterAction {
  const name = ((step.input ?? {}) as { access_name?: string }).access_name ?? 'that';
  const output = step.output as { success?: boolean; message?: string; denied?: boolean } | null;
  if (step.isError)
    return { text: output?.denied ? `Okay, I did not revoke ${name}.` : `I could not revoke ${name}: ${errorText(step.output)}` };
  if (output?.success) return { text: `I've revoked your ${name} access.` };
  return { text: `I could not revoke ${name}: ${output?.message ?? 'unknown error'}` };
}

/** The access agent's offline rules: the spec's three flows, plus "already held" and "did you mean". */
export const accessInterpreter: InterpreterRules = {
  help: [
    'I need access to <what>          find the access, check yours, and offer to grant it (you confirm)',
    'I need <ACCESS_NAME>             the same for an exact catalog name, e.g. I need DB_READ_PROD',
    'What accesses are available [for the <team> team]?',
    'What accesses do I have?',
    'I need <what> for <N> days because <reason>   a shorter grant, with the reason recorded',
    'Revoke <ACCESS_NAME>             give up an access you hold (you confirm)',
  ],
  next(turn) {
    const last = lastStep(turn);
    if (last?.toolName === 'grant_access_to_user') return afterGrant(last);
    if (last?.toolName === 'revoke_access_from_user') return afterRevoke(last);
    const text = turn.userText.trim();
    const { text: query, answersQuestion } = requestText(turn);
    if (REVOKE.test(text)) return revoke(turn, text);
    if (HELD.test(text)) return heldAccesses(turn);
    if (DISCOVERY.test(text) && !REQUEST.test(text.replace(/\baccess(es)?\b.*$/i, ''))) return discovery(turn);
    if (answersQuestion || REQUEST.test(text) || explicitNames(text).length > 0) return request(turn, query);
    if (YES.test(text)) return { text: 'There is nothing waiting for your confirmation. Tell me which access you need.' };
    if (NO.test(text)) return { text: 'Okay.' };
    return undefined;
  },
};
