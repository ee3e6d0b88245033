import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument } from 'yaml';
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

type Env = Readonly<Record<string, string | undefined>>;
type Path = readonly (string | number)[];

const VARIABLE = /\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` (or `${VAR:-default}`) in strings with the environment's value, so secrets
 * stay out of the file. An unset variable without a default is a problem at its key, never an
 * empty string (an empty bearer token would look like a working upstream).
 */
function expand(value: unknown, env: Env, path: Path, unset: { path: Path; name: string }[]): unknown {
  if (typeof value === 'string')
    return value.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined) return found;
      if (fallback === undefined) unset.push({ path, name });
      return fallback ?? '';
    });
  if (Array.isArray(value)) return value.map((item, index) => expand(item, env, [...path, index], unset));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item, env, [...path, key], unset)]));
  return value;
}

/** "upstreams.0.command (line 4)": where a problem sits, as the admin finds it in the file. */
function located(document: Document, lines: LineCounter, path: Path): string {
  const name = path.join('.') || '(top)';
  for (let depth = path.length; depth > 0; depth--) {
    const node = document.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return `${name} (line ${lines.linePos(node.range[0]).line})`;
  }
  return name;
}

/**
 * The issues of one bad upstream entry: zod reports "Invalid input" for a union that matched no
 * option, so the option is chosen here by the keys the admin wrote (`url` → HTTP, else stdio).
 */
function issuesOf(issue: z.core.$ZodIssue, raw: unknown): { path: Path; message: string }[] {
  if (issue.code !== 'invalid_union' || issue.errors.length !== 2) return [{ path: issue.path as Path, message: issue.message }];
  const entry = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey], raw);
  const http = typeof entry === 'object' && entry !== null && 'url' in entry;
  return (issue.errors[http ? 1 : 0] ?? []).map((inner) => ({
    path: [...(issue.path as Path), ...(inner.path as Path)],
    message:
      inner.code === 'unrecognized_keys'
        ? `${inner.message}; a stdio upstream has name, command, args, env, cwd; an HTTP one has name, url, headers (both: title, trusted, requesterMayApprove, tools, timeoutMs, mask)`
        : inner.message,
  }));
}

/** Parses a gateway configuration (YAML or JSON text). */
export function parseGatewayConfig(text: string, file: string, env: Env = process.env): GatewayConfig {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  if (document.errors.length > 0) {
    const detail = document.errors[0]!.message.split('\n')[0]!;
    throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail });
  }
  const raw: unknown = document.toJS();
  const unset: { path: Path; name: string }[] = [];
  const expanded = expand(raw, env, [], unset);
  const problems = unset.map(
    ({ path, name }) =>
      `${located(document, lines, path)}: \${${name}} is not set in the environment (set it, or write \${${name}:-default})`,
  );
  const parsed = GatewayConfig.safeParse(expanded);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      for (const { path, message } of issuesOf(issue, raw)) problems.push(`${located(document, lines, path)}: ${message}`);
  if (problems.length > 0 || !parsed.success) throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail: problems.join('; ') });
  return parsed.data;
}

export function loadGatewayConfig(file: string, env: Env = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw GatewayErrors.GATEWAY_CONFIG_INVALID({ file, detail: error instanceof Error ? error.message : String(error) });
  }
  return parseGatewayConfig(text, file, env);
}
