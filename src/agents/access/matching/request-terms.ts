/** What a request says besides the access: how long, and why. */
export interface GrantTerms {
  /** The request with the duration and reason clauses removed (what the access is matched on). */
  readonly request: string;
  /** "for 3 days", "for a day", "for 2 weeks" → days. */
  readonly durationDays?: number;
  /** "because …", "reason: …" → the person's words. */
  readonly reason?: string;
}

const DURATION = /\bfor\s+(a|an|one|\d{1,4})\s+(day|days|week|weeks)\b/i;
const REASON = /\b(?:because|since|reason:)\s+(.+?)[.!]?\s*$/i;

/** Splits a request into the access asked for, a duration in days and a reason. */
export function grantTerms(text: string): GrantTerms {
  let request = text;
  let reason: string | undefined;
  const because = REASON.exec(request);
  if (because) {
    reason = because[1]!.trim().slice(0, 500);
    request = request.slice(0, because.index);
  }
  let durationDays: number | undefined;
  const duration = DURATION.exec(request);
  if (duration) {
    const count = /^\d+$/.test(duration[1]!) ? Number(duration[1]) : 1;
    durationDays = duration[2]!.toLowerCase().startsWith('week') ? count * 7 : count;
    request = `${request.slice(0, duration.index)} ${request.slice(duration.index + duration[0].length)}`;
  }
  return {
    request: request.trim(),
    ...(durationDays !== undefined && durationDays >= 1 && durationDays <= 3650 ? { durationDays } : {}),
    ...(reason ? { reason } : {}),
  };
}
