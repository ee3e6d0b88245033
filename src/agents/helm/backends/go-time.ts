/**
 * Times as Helm prints them (Go's formatting), from an ISO instant. Go drops trailing zeros of the
 * fraction (`.999999999` layouts) and prints no fraction at all when it is zero.
 */
function parts(iso: string): { date: string; clock: string; fraction: string } {
  const [date = '', time = ''] = iso.replace(/Z$/, '').split('T');
  const [clock = '00:00:00', fraction = ''] = time.split('.');
  return { date, clock, fraction: fraction.replace(/0+$/, '') };
}

/** `time.Time` in JSON (RFC 3339 with nanoseconds): `2016-01-16T00:00:01.5Z`, as in `history -o json`. */
export function goJsonTime(iso: string): string {
  const { date, clock, fraction } = parts(iso);
  return `${date}T${clock}${fraction ? `.${fraction}` : ''}Z`;
}

/** `time.Time.String()` in UTC: `2016-01-16 00:00:01.5 +0000 UTC`, as in `helm list`'s `updated`. */
export function goTimeString(iso: string): string {
  const { date, clock, fraction } = parts(iso);
  return `${date} ${clock}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}
