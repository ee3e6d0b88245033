import type { CedarValueJson, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import {
  actionUid,
  callFacts,
  type PolicyCall,
  type PolicyPrincipal,
  principalEntities,
  resourceEntity,
  userUid,
} from './cedar-request.ts';
import type { PolicySet } from './policy-directory.ts';
import { PolicyErrors } from './policy-errors.ts';

export interface DecideCallInput {
  readonly user: PolicyPrincipal;
  readonly call: PolicyCall;
  /** The agent's auto-approve rule that matches this call, if any; the policy decides whether it may apply. */
  readonly autoApproveRule?: string;
  readonly sessionOptions?: Readonly<Record<string, unknown>>;
  /** The door the call came through. Default "" (not said). */
  readonly channel?: string;
  readonly at: Date;
}

export interface CallDecision {
  readonly action: 'run' | 'ask' | 'block' | 'auto';
  /** The policy that decided, by its `@id`. */
  readonly policyId: string;
  readonly reason: string;
  /** People who must approve before an `ask` runs: 1, or 2 when a policy asks for a second approver. 0 otherwise. */
  readonly requiredApprovals: number;
  /** For `auto`: the agent rule the policy let apply. */
  readonly rule?: string;
}

export interface MayApproveInput {
  readonly approver: PolicyPrincipal;
  readonly requester: PolicyPrincipal;
  readonly call: PolicyCall;
  /** Usernames who already approved this call. */
  readonly approvalsSoFar: readonly string[];
  /** People to test for `eligibleApprovers`. Default none. */
  readonly candidates?: readonly PolicyPrincipal[];
  /** The door the approver decides through. Default `web`; candidates are asked as deciding in the inbox (`web`). */
  readonly channel?: string;
  /** Who issued the approver's credential when it was not the approver; default "" (their own). */
  readonly credentialIssuedBy?: string;
  /**
   * Who issued credentials the requester acted with (an admin who minted a token for them); default
   * none. The policy sees whether the approver is one of them (`context.approverIssuedRequesterCredential`).
   */
  readonly requesterCredentialIssuers?: readonly string[];
  readonly at: Date;
}

/** The door eligible approvers are assumed to use: the inbox, with their own login. */
const CANDIDATE_CHANNEL = 'web';

export interface ApprovalVerdict {
  readonly allowed: boolean;
  readonly policyId: string;
  readonly reason: string;
  /** Usernames among the candidates the policy lets approve this call now. */
  readonly eligibleApprovers: readonly string[];
}

/** Decides run | ask | block | auto for a call and who may approve it, by a validated Cedar policy set. */
export interface CallPolicy {
  readonly dir: string;
  decideCall(input: DecideCallInput): CallDecision;
  mayApprove(input: MayApproveInput): ApprovalVerdict;
}

interface Answer {
  readonly allowed: boolean;
  readonly policyIds: readonly string[];
}

const NO_POLICY = 'no-matching-policy';

/** Stand-ins for people in requests to a policy set that never names a person (see `anonymity`). */
const SOMEONE_ASKING = '~requester';
const SOMEONE_APPROVING = '~approver';

const APPROVE_ONLY = /action\s*==\s*Opsgate::Action::"approve"/;
const NAMES_A_PERSON = /User::"/;
const READS_A_USERNAME = /\.username\b/;
const DISTINCT_APPROVERS = /context\.approvalsSoFar\.contains\(\s*principal\.username\s*\)/g;

/**
 * Whether this policy set ever tells one person from another other than by their roles and teams
 * and by who asked. When it does not, a request is answered the same for everyone with the same
 * roles and teams, so people are replaced by stand-ins and one cached answer serves them all:
 * Cedar costs about half a millisecond a request, and with a different user in every session the
 * answer cache otherwise never hits (a third of an approval round trip went to it).
 * - calls: no policy that may apply to call actions names a user or reads a username;
 * - approvals: no policy names a user, and a username is read only to keep two approvals distinct
 *   (which needs real names only once someone has approved).
 */
function anonymity(set: PolicySet): { readonly calls: boolean; readonly approvals: boolean } {
  const texts = [...set.policies.values()].map((policy) => policy.text);
  return {
    calls: texts.every(
      (text) =>
        (APPROVE_ONLY.test(text) && !/Action::"(call|run|autoApprove|ask|requireSecondApprover)"/.test(text)) ||
        !(NAMES_A_PERSON.test(text) || READS_A_USERNAME.test(text)),
    ),
    approvals: texts.every((text) => !NAMES_A_PERSON.test(text) && !READS_A_USERNAME.test(text.replace(DISTINCT_APPROVERS, ''))),
  };
}

function standIn(principal: PolicyPrincipal, username: string): PolicyPrincipal {
  return { ...principal, username };
}
let preparsedSets = 0;
/** Answers remembered per policy set (a loaded set never changes). At most 2,000 requests. */
const ANSWER_CACHE_SIZE = 2000;

/** The parts of Cedar the adapter calls: the engine itself, or a wrapper that counts what it is asked. */
type CedarEngine = Pick<typeof cedar, 'preparsePolicySet' | 'preparseSchema' | 'statefulIsAuthorized'>;

export function createCedarPolicy(set: PolicySet, engine: CedarEngine = cedar): CallPolicy {
  const staticPolicies = Object.fromEntries([...set.policies].map(([id, policy]) => [id, policy.text]));
  // Parsed once into the engine's cache: parsing the schema and policies per request costs milliseconds.
  preparsedSets += 1;
  const setName = `opsgate-policy-${preparsedSets}`;
  const parsedPolicies = engine.preparsePolicySet(setName, { staticPolicies });
  const parsedSchema = engine.preparseSchema(setName, set.schema);
  for (const parsed of [parsedPolicies, parsedSchema])
    if (parsed.type === 'failure')
      throw PolicyErrors.POLICY_INVALID({ dir: set.dir, detail: parsed.errors.map((error) => error.message).join('; ') });

  // An answer is a pure function of the request, so an identical request (the same person, call
  // and resource in the same hour) is answered from memory; the oldest entries leave first.
  const answers = new Map<string, Answer>();
  const anonymous = anonymity(set);

  /**
   * The request's key in the answer cache without its action: a decision asks up to five actions
   * about one request, and serialising it was most of the cache's cost (issue 32).
   */
  function requestKey(principal: string, resource: EntityJson, context: Record<string, CedarValueJson>, entities: EntityJson[]): string {
    return JSON.stringify([principal, resource, context, entities]);
  }

  function ask(
    action: string,
    request: string,
    principal: string,
    resource: EntityJson,
    context: Record<string, CedarValueJson>,
    entities: EntityJson[],
    tool: string,
  ): Answer {
    const key = `${action}\u0000${request}`;
    const known = answers.get(key);
    // Stryker disable all: a cache of a pure function; with it, without it or with another size the answers are the same
    if (known) return known;
    const answer = evaluate(action, principal, resource, context, entities, tool);
    if (answers.size >= ANSWER_CACHE_SIZE) answers.delete(answers.keys().next().value as string);
    answers.set(key, answer);
    // Stryker restore all
    return answer;
  }

  function evaluate(
    action: string,
    principal: string,
    resource: EntityJson,
    context: Record<string, CedarValueJson>,
    entities: EntityJson[],
    tool: string,
  ): Answer {
    const answer = engine.statefulIsAuthorized({
      principal: userUid(principal),
      action: actionUid(action),
      resource: resource.uid,
      context,
      preparsedSchemaName: setName,
      // Stryker disable next-line BooleanLiteral: defence in depth; every request built here already fits the schema (a User, a resource type every action applies to, a context Cedar parses against the schema), so validation refuses none
      validateRequest: true,
      preparsedPolicySetId: setName,
      entities: [...entities, resource],
    });
    if (answer.type === 'failure')
      // Stryker disable next-line StringLiteral: Cedar (4.13) stops at a request's first error, the context's before the entities', so there is never a second to join
      throw PolicyErrors.POLICY_EVALUATION_FAILED({ action, tool, detail: answer.errors.map((error) => error.message).join('; ') });
    const { decision, diagnostics } = answer.response;
    if (diagnostics.errors.length > 0)
      throw PolicyErrors.POLICY_EVALUATION_FAILED({
        action,
        tool,
        detail: diagnostics.errors.map((error) => `${error.policyId}: ${error.error.message}`).join('; '),
      });
    return { allowed: decision === 'allow', policyIds: [...diagnostics.reason].sort() };
  }

  function reasonOf(policyId: string, fallback: string): string {
    return set.policies.get(policyId)?.reason ?? fallback;
  }

  return {
    dir: set.dir,

    decideCall(input) {
      const { call } = input;
      const user = anonymous.calls ? standIn(input.user, SOMEONE_ASKING) : input.user;
      const options = input.sessionOptions ?? {};
      const context = {
        ...callFacts(call, user.username, input.at),
        autoApproveRule: input.autoApproveRule ?? '',
        agentMode: options.agentMode === true,
        autoApprove: options.autoApprove === true,
        channel: input.channel ?? '',
      };
      const resource = resourceEntity(call);
      const entities = principalEntities(user);
      const request = requestKey(user.username, resource, context, entities);
      const check = (action: string) => ask(action, request, user.username, resource, context, entities, call.tool);

      const allowed = check('call');
      if (!allowed.allowed) {
        const policyId = allowed.policyIds[0] ?? NO_POLICY;
        return { action: 'block', policyId, reason: reasonOf(policyId, `No policy allows ${call.tool} here.`), requiredApprovals: 0 };
      }
      const run = check('run');
      if (run.allowed) {
        const policyId = run.policyIds[0] ?? NO_POLICY;
        return {
          action: 'run',
          policyId,
          reason: reasonOf(policyId, `Policy ${policyId} lets ${call.tool} run at once.`),
          requiredApprovals: 0,
        };
      }
      if (input.autoApproveRule) {
        const auto = check('autoApprove');
        if (auto.allowed) {
          const policyId = auto.policyIds[0] ?? NO_POLICY;
          return {
            action: 'auto',
            policyId,
            rule: input.autoApproveRule,
            reason: reasonOf(policyId, `Policy ${policyId} lets rule ${input.autoApproveRule} approve ${call.tool}.`),
            requiredApprovals: 0,
          };
        }
      }
      const needsApproval = check('ask');
      if (!needsApproval.allowed) {
        const policyId = needsApproval.policyIds[0] ?? NO_POLICY;
        return {
          action: 'block',
          policyId,
          reason: reasonOf(policyId, `No policy lets ${call.tool} run or wait for approval.`),
          requiredApprovals: 0,
        };
      }
      const second = check('requireSecondApprover');
      const policyId = second.allowed ? (second.policyIds[0] ?? NO_POLICY) : (needsApproval.policyIds[0] ?? NO_POLICY);
      const requiredApprovals = second.allowed ? 2 : 1;
      const fallback = second.allowed
        ? `Policy ${policyId} asks two distinct people to approve ${call.tool}.`
        : `Policy ${policyId} asks a person to approve ${call.tool}.`;
      return { action: 'ask', policyId, reason: reasonOf(policyId, fallback), requiredApprovals };
    },

    mayApprove(input) {
      const { call } = input;
      // With nobody approved yet and a policy that never names a person, only "is this the requester?" matters.
      const anonymousNow = anonymous.approvals && input.approvalsSoFar.length === 0;
      const requester = anonymousNow ? standIn(input.requester, SOMEONE_ASKING) : input.requester;
      const asPolicySees = (person: PolicyPrincipal): PolicyPrincipal =>
        !anonymousNow ? person : person.username === input.requester.username ? requester : standIn(person, SOMEONE_APPROVING);
      const facts = { ...callFacts(call, requester.username, input.at), approvalsSoFar: [...input.approvalsSoFar] };
      const resource = resourceEntity(call);
      const issuers = new Set(input.requesterCredentialIssuers ?? []);
      const verdictFor = (person: PolicyPrincipal, channel: string, credentialIssuedBy: string): Answer => {
        const approver = asPolicySees(person);
        const entities = principalEntities(approver);
        if (approver.username !== requester.username)
          entities.push(...principalEntities(requester).filter((entity) => !entities.some((known) => sameUid(known, entity))));
        const context = { ...facts, channel, credentialIssuedBy, approverIssuedRequesterCredential: issuers.has(person.username) };
        return ask(
          'approve',
          requestKey(approver.username, resource, context, entities),
          approver.username,
          resource,
          context,
          entities,
          call.tool,
        );
      };
      const verdict = verdictFor(input.approver, input.channel ?? CANDIDATE_CHANNEL, input.credentialIssuedBy ?? '');
      const eligibleApprovers = (input.candidates ?? [])
        .filter((candidate) => verdictFor(candidate, CANDIDATE_CHANNEL, '').allowed)
        .map((candidate) => candidate.username)
        .sort();
      const policyId = verdict.policyIds[0] ?? NO_POLICY;
      if (verdict.allowed)
        return {
          allowed: true,
          policyId,
          reason: reasonOf(policyId, `Policy ${policyId} lets ${input.approver.username} approve ${call.tool}.`),
          eligibleApprovers,
        };
      const reason = reasonOf(policyId, verdict.policyIds.length > 0 ? `policy ${policyId} forbids it` : 'no policy lets them approve it');
      return { allowed: false, policyId, reason, eligibleApprovers };
    },
  };
}

function sameUid(a: EntityJson, b: EntityJson): boolean {
  return JSON.stringify(a.uid) === JSON.stringify(b.uid);
}
