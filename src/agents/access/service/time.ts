/** Timestamps as the spec shows them: `2026-02-11T10:30:00Z` (UTC, whole seconds). */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const DAY_MS = 86_400_000;

/** When a grant made at `assignedAt` ends, given the access's renewal period in days (null: never). */
export function expiryFor(assignedAt: Date, renewalPeriodDays: number | null): Date | null {
  return renewalPeriodDays === null ? null : new Date(assignedAt.getTime() + renewalPeriodDays * DAY_MS);
}
