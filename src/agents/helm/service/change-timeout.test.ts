import { describe, expect, it } from 'vitest';
import { chartSizeTimeout, maxTimeoutFrom, requestedTimeout } from './change-timeout.ts';

const object = (kind: string, name: string) => `---\napiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;

describe('Helm --timeout per change (issue 30 N8)', () => {
  it("defaults to Helm's 300 s for a small chart, and grows with workloads and StatefulSets", () => {
    const small = object('Deployment', 'web') + object('Service', 'web');
    expect(chartSizeTimeout(small, [], 'default', 1800)).toMatchObject({ seconds: 300, source: 'chart-size' });
    const big = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => object('Deployment', name)).join('') + object('StatefulSet', 'db');
    // 7 workloads: 300 + 3 × 30 + 60 for the StatefulSet = 450, rounded up to 480.
    const sized = chartSizeTimeout(big, [], 'default', 1800);
    expect(sized.seconds).toBe(480);
    expect(sized.reason).toContain('7 workloads, 1 StatefulSet');
  });

  it('gives a chart with a hook Job (a migration) at least 10 minutes, within the admin limit', () => {
    const hooks = [{ key: 'Job/migrate', events: ['pre-upgrade'] }];
    expect(chartSizeTimeout(object('Deployment', 'web'), hooks, 'default', 1800).seconds).toBe(600);
    const capped = chartSizeTimeout(object('Deployment', 'web'), hooks, 'default', 420);
    expect(capped.seconds).toBe(420);
    expect(capped.reason).toContain('cut to the admin limit of 420s');
  });

  it("takes the requester's timeout within 30 s and the admin limit, and refuses the rest with what to do", () => {
    expect(requestedTimeout(900, 1800)).toMatchObject({ seconds: 900, source: 'requested' });
    for (const bad of [7200, 10, 90.5])
      expect(() => requestedTimeout(bad, 1800)).toThrow(expect.objectContaining({ code: 'HELM_TIMEOUT_OVER_LIMIT' }));
    expect(() => requestedTimeout(7200, 1800)).toThrow(/30 to 1800 seconds.*OPSGATE_HELM_MAX_TIMEOUT_SECONDS/);
  });

  it('reads the admin limit from configuration, refusing nonsense at start-up', () => {
    expect(maxTimeoutFrom(undefined)).toBe(1800);
    expect(maxTimeoutFrom('3600')).toBe(3600);
    expect(() => maxTimeoutFrom('1h')).toThrow(/whole number of seconds/);
    expect(() => maxTimeoutFrom('5')).toThrow(/at least 30/);
  });
});
