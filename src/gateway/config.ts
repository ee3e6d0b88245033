import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { GatewayErrors } from './gateway-errors.ts';

const NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** An admin's word on one tool; it overrides the upstream's annotations, which are only hints. */
const ToolPin = z
  .object({
    policy: z.enum(['run', 'ask', 'deny']).optional(),
    risk: z.enum(['low', 'medium', 'high', 'critical']).optional(),
    /** The requester may approve their own call of this tool (where the risk allows it); overrides the upstream's setting. */
    requesterMayApprove: z.boolean().optional(),
  })
  .strict();

const Common = {
  name: z.string().regex(NAME, 'a lowercase name of letters, digits and dashes (it prefixes the tools: NAME__tool)'),
  title: z.string().max(200).optional(),
  /**
   * The upstream's annotations (readOnlyHint, destructiveHint) are believed. Default false: an
   * upstream's word that a tool only reads is a claim, so its tools ask until an admin pins them `run`.
   */
  trusted: z.boolean().default(false),
  /**
   * The requester may approve their own writes through this upstream where the risk allows it
   * (below high). Default false: a write through the gateway is decided by someone else.
   */
  requesterMayApprove: z.boolean().default(false),
  /** Pins per upstream tool name. */
  tools: z.record(z.string(), ToolPin).default({}),
  /** Milliseconds an upstream call may take. */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(30_000),
  /** Strings replaced by "[masked]" in results (e.g. a token the upstream echoes). */
  mask: z.array(z.string().min(4)).default([]),
};

const StdioUpstream = z
  .object({
    ...Common,
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
  })
  .strict();

const HttpUpstream = z
  .object({
    ...Common,
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict();

export const UpstreamConfig = z.union([StdioUpstream, HttpUpstream]);
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;
export type StdioUpstreamConfig = z.infer<typeof StdioUpstream>;
export type ToolPin = z.infer<typeof ToolPin>;

export const GatewayConfig = z
  .object({
    upstreams: z.array(UpstreamConfig).min(1),
    /** Seconds a client's call stays open waiting for a decision before it returns "waiting for approval". */
    approvalWaitSeconds: z.number().int().min(0).max(86_400).default(120),
    /** Host names (without port) clients may connect as; others get 403. */
    allowedHosts: z.array(z.string().min(1)).default(['127.0.0.1', 'localhost', '[::1]']),
    limits: z
      .object({
        /** Calls per person per minute, all tools together. */
        perUserPerMinute: z.number().int().min(1).default(600),
        /** Calls per person per tool per minute. */
        perToolPerMinute: z.number().int().min(1).default(300),
        /** Largest result passed on to a client, in bytes. */
        maxResultBytes: z.number().int().min(1024).default(1_000_000),
      })
      .strict()
      .default({ perUserPerMinute: 600, perToolPerMinute: 300, maxResultBytes: 1_000_000 }),
  })
  .strict()
  .superRefine((config, context) => {
    const seen = new Set<string>();
    for (const upstream of config.upstreams) {
      if (seen.has(upstream.name)) context.addIssue({ code: 'custom', message: `upstream "${upstream.name}" is declared twice` });
      seen.add(upstream.name);
    }
  });
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** Replaces `${VAR}` in strings with the environment's value, so that secrets stay out of the file. */
function expand(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') return value.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
  if (Array.isArray(value)) return value.map((item) => expand(item, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, env)]));
  return value;
}

/** Parses a gateway configuration (YAML or JSON text). */
export function parseGatewayConfig(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail: error instanceof Error ? error.message.split('\n')[0] : String(error) });
  }
  const parsed = GatewayConfig.safeParse(expand(raw, env));
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`).join('; ');
    throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail });
  }
  return parsed.data;
}

export function loadGatewayConfig(file: string, env: Readonly<Record<string, string | undefined>> = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail: error instanceof Error ? error.message : String(error) });
  }
  return parseGatewayConfig(text, file, env);
}
