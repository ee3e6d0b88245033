import { describe, expect, it } from 'vitest';
import { parseVerifyOutput } from './parse-verify-output.ts';

// Output of `helm verify rollout-1.0.0.tgz --keyring pubring.gpg` on Helm 3.17.2 and 4.1.4 (identical).
const VERIFIED = `Signed by: opsgate test <test@opsgate.invalid>
Using Key With Fingerprint: FCC51541083F6305FA7DD7C4631BDB5662257EB6
Chart Hash Verified: sha256:ab790c2b434f96007219ed91ee071d09d39c03ee1308fe5e59feaab07f8c46df
`;

describe('parseVerifyOutput', () => {
  it('reads the signer, the key fingerprint and the verified hash', () => {
    expect(parseVerifyOutput(VERIFIED)).toEqual({
      signedBy: 'opsgate test <test@opsgate.invalid>',
      fingerprint: 'FCC51541083F6305FA7DD7C4631BDB5662257EB6',
      hash: 'sha256:ab790c2b434f96007219ed91ee071d09d39c03ee1308fe5e59feaab07f8c46df',
    });
  });

  it('is undefined when a line is missing, never a verified chart', () => {
    expect(parseVerifyOutput(VERIFIED.replace(/^Chart Hash Verified.*$/m, ''))).toBeUndefined();
    expect(parseVerifyOutput('')).toBeUndefined();
  });
});
