import type { ChartProvenance } from '../types.ts';

/**
 * `helm verify`'s answer (the same on 3.17 and 4.1): `Signed by: NAME <EMAIL>`, `Using Key With
 * Fingerprint: HEX`, `Chart Hash Verified: sha256:HEX`. Undefined when a line is missing, so a
 * changed output is never read as a verified chart.
 */
export function parseVerifyOutput(stdout: string): ChartProvenance | undefined {
  const line = (label: string) => new RegExp(`^${label}: (.+)$`, 'm').exec(stdout)?.[1]?.trim();
  const signedBy = line('Signed by');
  const fingerprint = line('Using Key With Fingerprint');
  const hash = line('Chart Hash Verified');
  if (!signedBy || !fingerprint || !hash?.startsWith('sha256:')) return undefined;
  return { signedBy, fingerprint, hash };
}
