import type { ApprovalPreview, RiskAssessment } from '../../core/tools/index.ts';

/** Name tokens and team tags that raise an access's risk, with their weight. */
const FACTORS: ReadonlyArray<{
  readonly label: string;
  readonly weight: number;
  readonly applies: (tokens: Set<string>, teams: Set<string>) => boolean;
}> = [
  {
    label: 'finance',
    weight: 2,
    applies: (tokens, teams) => teams.has('finance') || tokens.has('BILLING') || tokens.has('FINANCE') || tokens.has('PAYROLL'),
  },
  // Production alone (a read) ranks above a plain read but stays self-approvable: the access
  // contract's flow 2 has the requester approve his own production read.
  { label: 'production', weight: 1, applies: (tokens) => tokens.has('PROD') || tokens.has('PRODUCTION') },
  { label: 'write', weight: 2, applies: (tokens) => tokens.has('WRITE') },
  { label: 'admin', weight: 2, applies: (tokens) => tokens.has('ADMIN') },
  { label: 'deploy', weight: 1, applies: (tokens) => tokens.has('DEPLOY') },
];

/** The catalog facts a grant preview carries (`details.teams`, `details.renewal_period`). */
function previewDetails(preview: ApprovalPreview | undefined): { teams: string[]; renewalPeriod: number | null | undefined } {
  const details = (preview?.details ?? {}) as { teams?: unknown; renewal_period?: unknown };
  const teams = Array.isArray(details.teams) ? details.teams.filter((t): t is string => typeof t === 'string') : [];
  const renewalPeriod =
    typeof details.renewal_period === 'number' ? details.renewal_period : details.renewal_period === null ? null : undefined;
  return { teams, renewalPeriod };
}

/**
 * The risk of granting an access, from its name tokens and (when the preview read the catalog) its
 * team tags: finance, production, write and admin rank above read. Weights add up: 4 or more is
 * critical, 2–3 high, 1 medium; 0 is low for a read access and medium otherwise.
 */
export function assessGrantRisk(accessName: string, preview?: ApprovalPreview, durationDays?: number): RiskAssessment {
  const tokens = new Set(accessName.toUpperCase().split('_').filter(Boolean));
  const { teams, renewalPeriod } = previewDetails(preview);
  const teamSet = new Set(teams);
  const hits = FACTORS.filter((f) => f.applies(tokens, teamSet));
  const score = hits.reduce((sum, f) => sum + f.weight, 0);
  const isRead = tokens.has('READ') || tokens.has('VIEW');
  const level = score >= 4 ? 'critical' : score >= 2 ? 'high' : score === 1 ? 'medium' : isRead ? 'low' : 'medium';
  const days = durationDays ?? renewalPeriod;
  const term = days === undefined ? '' : days === null ? ', no expiry' : `, expires after ${days} days`;
  const what =
    hits.length > 0 ? hits.map((f) => f.label).join(' + ') : isRead ? 'read-only, non-production' : 'no finance, production or write scope';
  return { level, reason: `grant ${accessName}: ${what} access${term}` };
}

/** Revoking takes a permission away and grants nothing: low whatever the access. */
export function assessRevokeRisk(accessName: string): RiskAssessment {
  return { level: 'low', reason: `revoke ${accessName}: removes a permission, grants nothing` };
}
