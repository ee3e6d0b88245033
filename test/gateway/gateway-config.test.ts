import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../src/gateway/index.ts';
import { MinuteWindows } from '../../src/gateway/rate-limits.ts';
import { treatmentOf } from '../../src/gateway/upstream-agent.ts';

const tool = (annotations?: Record<string, boolean>) => ({
  name: 't',
  inputSchema: { type: 'object' as const },
  ...(annotations ? { annotations } : {}),
});

describe('gateway configuration and policy attributes', () => {
  it('reads stdio and HTTP upstreams, fills defaults and takes secrets from the environment', () => {
    const config = parseGatewayConfig(
      `upstreams:
  - name: files
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", /srv]
  - name: github
    url: https://api.githubcopilot.com/mcp/
    headers: { Authorization: "Bearer \${GITHUB_TOKEN}" }
    tools: { delete_repository: { policy: deny } }`,
      'gateway.yaml',
      { GITHUB_TOKEN: 'ghp_secret' },
    );
    expect(config.approvalWaitSeconds).toBe(120);
    expect(config.upstreams[1]).toMatchObject({
      headers: { Authorization: 'Bearer ghp_secret' },
      tools: { delete_repository: { policy: 'deny' } },
    });
  });

  it('refuses a broken file with the path of each problem', () => {
    expect(() => parseGatewayConfig('upstreams: [{ name: Bad Name, command: x }]', 'g.yaml')).toThrow(
      /GATEWAY_CONFIG_INVALID|upstreams\.0\.name/,
    );
    expect(() => parseGatewayConfig('upstreams:\n  - { name: a, command: x }\n  - { name: a, command: y }', 'g.yaml')).toThrow(
      /declared twice/,
    );
    expect(() => parseGatewayConfig('upstreams: [', 'g.yaml')).toThrow(/g\.yaml is invalid/);
  });

  it('names the key and line of the common mistakes (F6): a misspelt command, an unset variable', () => {
    const typo = () => parseGatewayConfig('upstreams:\n  - name: files\n    comand: npx\n', 'g.yaml');
    expect(typo).toThrow(/upstreams\.0 \(line 2\): Unrecognized key: "comand"/);
    expect(typo).toThrow(/upstreams\.0\.command \(line 2\)/);
    const unset = () =>
      parseGatewayConfig(
        'upstreams:\n  - name: gh\n    url: https://example.test/mcp\n    headers: { Authorization: "Bearer ${GH_TOKEN}" }\n',
        'g.yaml',
        {},
      );
    expect(unset).toThrow(/upstreams\.0\.headers\.Authorization \(line 4\): \$\{GH_TOKEN\} is not set/);
    const fallback = parseGatewayConfig('upstreams:\n  - name: gh\n    url: ${GH_URL:-https://example.test/mcp}\n', 'g.yaml', {});
    expect(fallback.upstreams[0]).toMatchObject({ url: 'https://example.test/mcp' });
  });

  it("an untrusted upstream's annotations are not believed: every tool asks, at high risk, until an admin pins it", () => {
    expect(treatmentOf(tool({ readOnlyHint: true }), undefined)).toMatchObject({ mutability: 'mutable', risk: 'high' });
    expect(treatmentOf(tool({ readOnlyHint: true }), undefined, false).why).toMatch(/not marked trusted/);
    expect(treatmentOf(tool({ readOnlyHint: true }), { policy: 'run' })).toMatchObject({ mutability: 'read-only', risk: 'low' });
  });

  it("a trusted upstream's annotations are hints, an admin's pin is the word", () => {
    expect(treatmentOf(tool({ readOnlyHint: true }), undefined, true)).toMatchObject({ mutability: 'read-only', risk: 'low' });
    expect(treatmentOf(tool({ readOnlyHint: false, destructiveHint: false }), undefined, true)).toMatchObject({
      mutability: 'mutable',
      risk: 'medium',
    });
    // MCP's default for a tool that says nothing: a destructive change.
    expect(treatmentOf(tool(), undefined, true)).toMatchObject({ mutability: 'mutable', risk: 'high' });
    expect(treatmentOf(tool({ readOnlyHint: true }), { policy: 'ask' }, true)).toMatchObject({ mutability: 'mutable', risk: 'high' });
    expect(treatmentOf(tool({ readOnlyHint: true }), { policy: 'ask', risk: 'medium' }, true)).toMatchObject({
      mutability: 'mutable',
      risk: 'medium',
    });
    expect(treatmentOf(tool(), { policy: 'run' }, true)).toMatchObject({ mutability: 'read-only', risk: 'low' });
    expect(treatmentOf(tool({ readOnlyHint: true }), { policy: 'deny' }, true).offered).toBe(false);
  });

  it('rate limits count per key in one-minute windows', () => {
    let now = 0;
    const windows = new MinuteWindows(2, () => now);
    expect(windows.take('john')).toBeUndefined();
    expect(windows.take('john')).toBeUndefined();
    expect(windows.take('john')).toBe(60);
    expect(windows.take('jane')).toBeUndefined();
    now = 59_000;
    expect(windows.take('john')).toBe(1);
    now = 60_000;
    expect(windows.take('john')).toBeUndefined();
  });
});
