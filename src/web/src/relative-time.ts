/** "3 min", "5 h", "2 days": a span of time as a person says it on an inbox card. */
export function spanInWords(milliseconds: number): string {
  const minutes = Math.floor(Math.abs(milliseconds) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** "asked 3 min ago · expires in 24 h" (or "· does not expire", "· expired"). */
export function askedAndExpiry(requestedAt: string, expiresAt: string | undefined, now = Date.now()): string {
  const asked = now - new Date(requestedAt).getTime();
  const askedText = asked < 60_000 ? 'asked just now' : `asked ${spanInWords(asked)} ago`;
  if (!expiresAt) return `${askedText} · does not expire`;
  const left = new Date(expiresAt).getTime() - now;
  return `${askedText} · ${left <= 0 ? 'expired' : `expires in ${spanInWords(left)}`}`;
}
