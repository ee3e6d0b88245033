import { describe, expect, it } from 'vitest';
import { securityOptionsFromEnv } from './security-config.ts';

describe('security switches from the environment', () => {
  it('https public URL → secure cookies; trust proxy true or a list; session quota ACTIVE:PER_MINUTE', () => {
    expect(securityOptionsFromEnv({})).toEqual({ secureCookies: false, trustProxy: false, sessionQuota: { active: 200, perMinute: 60 } });
    expect(
      securityOptionsFromEnv({ OPSGATE_PUBLIC_URL: 'https://ops.example', OPSGATE_TRUST_PROXY: 'true', OPSGATE_SESSION_QUOTA: '20:5' }),
    ).toEqual({ secureCookies: true, trustProxy: true, sessionQuota: { active: 20, perMinute: 5 } });
    expect(securityOptionsFromEnv({ OPSGATE_PUBLIC_URL: 'http://ops.local', OPSGATE_TRUST_PROXY: '10.0.0.1,10.0.0.2' })).toMatchObject({
      secureCookies: false,
      trustProxy: '10.0.0.1,10.0.0.2',
    });
  });

  it('refuses what it cannot read, saying what it expects', () => {
    expect(() => securityOptionsFromEnv({ OPSGATE_PUBLIC_URL: 'ops.example' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => securityOptionsFromEnv({ OPSGATE_SESSION_QUOTA: '200' })).toThrow(/ACTIVE:PER_MINUTE/);
    expect(() => securityOptionsFromEnv({ OPSGATE_SESSION_QUOTA: '0:5' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
