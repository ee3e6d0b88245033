import type { CedarValueJson, EntityJson, EntityUidJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { PolicyTarget, Risk } from '../../tools/index.ts';

/** A person as the policy sees them. */
export interface PolicyPrincipal {
  readonly username: string;
  readonly roles: readonly string[];
  readonly teams?: readonly string[];
}

/** One tool call as the policy sees it. */
export interface PolicyCall {
  readonly tool: string;
  readonly agent: string;
  readonly mutable: boolean;
  readonly risk: Risk;
  readonly args: Readonly<Record<string, unknown>>;
  /** What the call acts on, as its agent names it (the tool's `policyTarget`). */
  readonly target?: PolicyTarget;
}

export const RISK_LEVELS: Readonly<Record<Risk, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

const NAMESPACE = 'Opsgate';

function entityUid(type: string, id: string): EntityUidJson {
  return { type: `${NAMESPACE}::${type}`, id };
}

export function userUid(username: string): EntityUidJson {
  return entityUid('User', username);
}

export function actionUid(action: string): EntityUidJson {
  return { type: `${NAMESPACE}::Action`, id: action };
}

/** The user with their roles and teams as parents (the roles and teams are entities of their own). */
export function principalEntities(principal: PolicyPrincipal): EntityJson[] {
  const roles = principal.roles.map((role) => entityUid('Role', role));
  const teams = (principal.teams ?? []).map((team) => entityUid('Team', team));
  return [
    { uid: userUid(principal.username), attrs: { username: principal.username }, parents: [...roles, ...teams] },
    ...[...roles, ...teams].map((uid) => ({ uid, attrs: {}, parents: [] })),
  ];
}

function text(args: Readonly<Record<string, unknown>>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && value.length > 0) return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

/**
 * What a call acts on, read from its arguments by their conventional names: an access, a Helm
 * release or namespace, a host or a database; the tool itself when none is named.
 */
export function resourceEntity(call: PolicyCall): EntityJson {
  const { args } = call;
  const access = text(args, 'access_name', 'accessName');
  if (access) return { uid: entityUid('Access', access), attrs: { name: access }, parents: [] };
  const namespace = text(args, 'namespace');
  const release = text(args, 'release', 'release_name', 'releaseName');
  if (release)
    return {
      uid: entityUid('Release', `${namespace ?? ''}/${release}`),
      attrs: { name: release, namespace: namespace ?? '' },
      parents: [],
    };
  if (namespace) return { uid: entityUid('Namespace', namespace), attrs: { name: namespace }, parents: [] };
  const host = text(args, 'host_id', 'hostId', 'host');
  if (host) return { uid: entityUid('Host', host), attrs: { id: host }, parents: [] };
  const database = text(args, 'database', 'db');
  if (database) return { uid: entityUid('Database', database), attrs: { name: database }, parents: [] };
  return { uid: entityUid('Tool', `${call.agent}/${call.tool}`), attrs: { name: call.tool, agent: call.agent }, parents: [] };
}

/** Context fields every request carries: the call, its risk, who asked and when (UTC). */
export function callFacts(call: PolicyCall, requester: string, at: Date): Record<string, CedarValueJson> {
  return {
    tool: call.tool,
    agent: call.agent,
    mutable: call.mutable,
    risk: call.risk,
    riskLevel: RISK_LEVELS[call.risk],
    target: call.target?.name ?? '',
    environment: call.target?.environment ?? '',
    requester: { __entity: { type: `${NAMESPACE}::User`, id: requester } },
    hour: at.getUTCHours(),
    weekday: at.getUTCDay() === 0 ? 7 : at.getUTCDay(),
  };
}
