import type { InterpreterAction, InterpreterRules, InterpreterTurn } from '../../core/model/interpreter-rules.ts';
import { type CatalogEntry, clarifyingQuestion, explicitNames, isSensitive, matchAccess } from './access-matching.ts';

type Step = InterpreterTurn['steps'][number];

const YES = /^(y|yes|yes please|yep|yeah|sure|ok|okay|go ahead|do it|please do)[.!]*$/i;
const NO = /^(n|no|nope|no thanks|cancel)[.!]*$/i;
const HELD = /\b(what|which|show|list)\b.*\b(do i have|i have|i hold|my access(es)?)\b|\bmy access(es)?\b/i;
const DISCOVERY = /\b(what|which|show|list|available)\b.*\baccess(es)?\b|\baccess(es)?\b.*\bavailable\b/i;
const TEAM = /\b(?:for|of|on)\s+(?:the\s+)?([a-z][a-z0-9_-]*)\s+team\b|\bteam\s+([a-z][a-z0-9_-]*)\b/i;
const REQUEST = /\b(need|want|give|grant|request|get me|access to|can i|could i|would like|please)\b/i;

/** Marks the agent's own clarifying questions, so the next message is read as an answer to them. */
const CLARIFICATION_OPENERS = [
  'I found multiple ',
  'I found several matching accesses',
  'I could not find an access',
  'There is no access named',
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

/** The request text of this turn: after clarifying questions, the original request plus every answer. */
function requestText(turn: InterpreterTurn): { text: string; answersQuestion: boolean } {
  const history = turn.history;
  const parts = [turn.userText];
  let index = history.length - 1;
  while (index >= 1) {
    const assistant = history[index]!;
    const user = history[index - 1]!;
    if (assistant.role !== 'assistant' || user.role !== 'user' || !CLARIFICATION_OPENERS.some((o) => assistant.text.startsWith(o))) break;
    parts.unshift(user.text);
    index -= 2;
  }
  return { text: parts.join(' '), answersQuestion: parts.length > 1 };
}

function proposalText(access: CatalogEntry): string {
  if (!isSensitive(access)) return `I found ${access.name} access. Would you like me to grant it?`;
  const terms =
    access.renewal_period !== null && access.renewal_period !== undefined
      ? `It has a renewal period of ${access.renewal_period} days: the grant expires ${access.renewal_period} days after it is made unless renewed.`
      : 'It has no renewal period: the grant does not expire until it is revoked.';
  return `I found ${access.name} access (${access.description}). ${terms} Would you like me to grant it?`;
}

/** After the grant ran (or was rejected): say what happened. */
function afterGrant(step: Step): InterpreterAction {
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

function request(turn: InterpreterTurn, text: string): InterpreterAction {
  const listed = stepOf(turn, 'list_available_accesses');
  if (!listed) return { toolCalls: [{ toolName: 'list_available_accesses', input: {} }] };
  const catalog = catalogFrom(listed);
  if ('error' in catalog) return { text: `I could not read the access catalog: ${catalog.error}` };
  const match = matchAccess(text, catalog);
  if (match.kind === 'ambiguous') return { text: clarifyingQuestion(match.candidates) };
  if (match.kind === 'unknown') {
    const names = match.suggestions.map((s) => `${s.name} (${s.description})`).join(', ');
    const opener =
      explicitNames(text).length > 0 ? `There is no access named ${match.query}.` : `I could not find an access matching "${match.query}".`;
    return { text: `${opener} The closest catalog accesses are: ${names}. Which one do you need?` };
  }
  const access = match.access;
  const got = stepOf(turn, 'get_user_accesses');
  if (!got) return { toolCalls: [{ toolName: 'get_user_accesses', input: {} }] };
  const held = got.output as { accesses?: Array<{ name: string }>; error?: string };
  if (got.isError || !Array.isArray(held?.accesses)) return { text: `I could not check your current accesses: ${errorText(got.output)}` };
  if (held.accesses.some((a) => a.name === access.name)) return { text: `You already have ${access.name} access.` };
  return { text: proposalText(access), toolCalls: [{ toolName: 'grant_access_to_user', input: { access_name: access.name } }] };
}

/** The access agent's offline rules: the spec's three flows, plus "already held" and "did you mean". */
export const accessInterpreter: InterpreterRules = {
  help: [
    'I need access to <what>          find the access, check yours, and offer to grant it (you confirm)',
    'I need <ACCESS_NAME>             the same for an exact catalog name, e.g. I need DB_READ_PROD',
    'What accesses are available [for the <team> team]?',
    'What accesses do I have?',
  ],
  next(turn) {
    const last = lastStep(turn);
    if (last?.toolName === 'grant_access_to_user') return afterGrant(last);
    const text = turn.userText.trim();
    const { text: query, answersQuestion } = requestText(turn);
    if (HELD.test(text)) return heldAccesses(turn);
    if (DISCOVERY.test(text) && !REQUEST.test(text.replace(/\baccess(es)?\b.*$/i, ''))) return discovery(turn);
    if (answersQuestion || REQUEST.test(text) || explicitNames(text).length > 0) return request(turn, query);
    if (YES.test(text)) return { text: 'There is nothing waiting for your confirmation. Tell me which access you need.' };
    if (NO.test(text)) return { text: 'Okay.' };
    return undefined;
  },
};
