import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';
import { type AgentDefinition, defineAgent } from '../core/agent/index.ts';
import { canonicalJson } from '../core/audit/index.ts';
import { type AnyToolDefinition, defineTool, type Mutability, type Risk } from '../core/tools/index.ts';
import type { ToolPin } from './config.ts';
import { GatewayErrors } from './gateway-errors.ts';
import { masked } from './mask.ts';
import { type ChangedTool, ToolDefinitions, toolChangeNoticesMigration, toolDefinitionsMigration } from './tool-definitions.ts';
import { injectionMarkers, SAFE_TOOL_NAME, withoutControls } from './untrusted-text.ts';
import type { Upstream } from './upstream.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** Separates the upstream from its tool in the names clients see: `files__write_file`. */
export const NAMESPACE_SEPARATOR = '__';

/** The agent name an upstream's calls run under (sessions, audit, policy `context.agent`). */
export function upstreamAgentName(upstream: string): string {
  return `gateway-${upstream}`;
}

/** How opsgate treats one upstream tool: the admin's pin first, the upstream's annotations only as hints. */
export interface ToolTreatment {
  readonly offered: boolean;
  readonly mutability: Mutability;
  readonly risk: Risk;
  readonly why: string;
}

/**
 * The admin's pin first; the upstream's annotations only when the admin marked the upstream
 * trusted (M4-new: a lying upstream could otherwise call a write "read-only"); else MCP's default
 * for a tool that says nothing: a destructive change.
 */
export function treatmentOf(tool: Tool, pin: ToolPin | undefined, trusted = false): ToolTreatment {
  if (pin?.policy === 'deny') return { offered: false, mutability: 'mutable', risk: 'critical', why: 'denied by an admin' };
  if (!SAFE_TOOL_NAME.test(tool.name))
    return { offered: false, mutability: 'mutable', risk: 'critical', why: 'its name has characters other than letters, digits, _ . -' };
  const hints = trusted ? tool.annotations : undefined;
  const readOnly = pin?.policy === 'run' || (pin?.policy !== 'ask' && hints?.readOnlyHint === true);
  const risk: Risk = pin?.risk ?? (readOnly ? 'low' : hints?.destructiveHint === false ? 'medium' : 'high');
  const why = pin?.policy
    ? `pinned "${pin.policy}" by an admin`
    : !trusted
      ? 'the upstream is not marked trusted, so its annotations are not believed'
      : readOnly
        ? 'the trusted upstream marks it read-only'
        : hints?.destructiveHint === false
          ? 'the trusted upstream marks it a non-destructive change'
          : 'the trusted upstream marks it (or leaves it) destructive';
  return { offered: true, mutability: readOnly ? 'read-only' : 'mutable', risk, why };
}

/**
 * The environment Cedar sees for a gateway call: "gateway", or "gateway-requester-may-approve"
 * where an admin let requesters approve their own calls (rule `sod-gateway-writes`).
 */
export function gatewayPolicyEnvironment(requesterMayApprove: boolean): string {
  return requesterMayApprove ? 'gateway-requester-may-approve' : 'gateway';
}

function sha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export interface UpstreamAgentOptions {
  readonly upstream: Upstream;
  readonly maxResultBytes: number;
  /** Receives each raw result by call id, so the gateway hands the client the exact result (the stored one is shortened for models). */
  readonly onResult?: (callId: string, result: CallToolResult) => void;
  /** Hears a tool definition change when it is first recorded. */
  readonly onDefinitionChanged?: (change: ChangedTool) => void;
}

/**
 * One upstream MCP server as an opsgate agent: its tools become guarded tools, so every client
 * call goes through the same schema check, policy, approval, exactly-once execution and audit
 * as a model's call. The upstream is connected and its tools listed when the runtime starts.
 */
export function upstreamAgent(options: UpstreamAgentOptions): AgentDefinition {
  const { upstream } = options;
  const config = upstream.config;
  return defineAgent({
    name: upstreamAgentName(upstream.name),
    title: config.title ?? `${upstream.name} (MCP gateway)`,
    description: `Tools of the upstream MCP server "${upstream.name}", guarded by opsgate.`,
    instructions: `You call the tools of the MCP server "${upstream.name}". State-changing calls wait for a person's approval.`,
    migrations: [toolDefinitionsMigration, toolChangeNoticesMigration],
    async setup(context) {
      const definitions = new ToolDefinitions(context.store, options.onDefinitionChanged ? { onChanged: options.onDefinitionChanged } : {});
      upstream.reviewWith((tools) => definitions.review(upstream.name, tools));
      // A dead upstream must not keep opsgate from starting: it offers no tools until a client's
      // list or call finds it up (then `watchTools` brings them), and its status says why.
      const listed = await upstream.start().catch((error: unknown) => {
        context.logger.warn(
          { upstream: upstream.name, error: error instanceof Error ? error.message : String(error) },
          'upstream unavailable',
        );
        return [];
      });
      const toolsFrom = (offered: readonly Tool[]): AnyToolDefinition[] => {
        // A fresh validator each time: the same schema compiled twice would clash on its `$id`.
        const ajv = new Ajv2020({ strict: false, allErrors: true });
        // Upstream schemas use `format` (uri, date-time…): checked, not warned about at every start (F14).
        addFormats(ajv);
        const tools: AnyToolDefinition[] = [];
        for (const tool of offered) {
          const treatment = treatmentOf(tool, config.tools[tool.name], config.trusted);
          if (!treatment.offered) continue;
          const check = compileInputSchema(ajv, tool.inputSchema);
          const markers = injectionMarkers(`${tool.title ?? ''}\n${tool.description ?? ''}`);
          // Approvers read this line: it says when the upstream's own text tries to steer the model.
          const reason = `${upstream.name}/${tool.name}: ${treatment.why}${markers.length > 0 ? `; its description has prompt-injection markers: ${markers.join(', ')}` : ''}`;
          const policyEnvironment = gatewayPolicyEnvironment(config.tools[tool.name]?.requesterMayApprove ?? config.requesterMayApprove);
          tools.push(
            defineTool({
              name: tool.name,
              description: withoutControls(tool.description ?? tool.name),
              input: z.record(z.string(), z.unknown()).superRefine((value, context) => {
                const problem = check(value);
                if (problem) context.addIssue({ code: 'custom', message: problem });
              }),
              mutability: treatment.mutability,
              risk: treatment.risk,
              policyTarget: () => ({ name: `${upstream.name}/${tool.name}`, environment: policyEnvironment }),
              assessRisk: () => ({ level: treatment.risk, reason }),
              // Approvers see the name the requester's client used, which says the upstream (F12); reads
              // have no preview, so they keep the fast path.
              ...(treatment.mutability === 'mutable'
                ? {
                    preview: (input: Record<string, unknown>) => ({
                      kind: 'gateway-call',
                      headline: `${upstream.name}${NAMESPACE_SEPARATOR}${tool.name}`,
                      summary: `Calls ${tool.name} on the MCP upstream "${upstream.name}" with these arguments.`,
                      details: input,
                    }),
                  }
                : {}),
              // An upstream's answers change by themselves; never answer from the session's cache.
              cache: false,
              async execute(input: Record<string, unknown>, context) {
                const result = masked(await upstream.call(tool.name, input, context.signal), config.mask);
                const bytes = Buffer.byteLength(JSON.stringify(result));
                await context.audit('upstream_called', {
                  callId: context.callId,
                  upstream: upstream.name,
                  transport: upstream.status().transport,
                  tool: tool.name,
                  argsHash: sha256(input),
                  resultHash: sha256(result),
                  isError: result.isError === true,
                });
                if (bytes > options.maxResultBytes && treatment.mutability === 'read-only')
                  throw GatewayErrors.GATEWAY_RESULT_TOO_LARGE({ tool: tool.name, bytes, limit: options.maxResultBytes });
                options.onResult?.(context.callId, result);
                if (result.isError)
                  throw GatewayErrors.GATEWAY_TOOL_ERROR({
                    tool: tool.name,
                    upstream: upstream.name,
                    detail: resultText(result) || 'no details',
                  });
                return result;
              },
            }),
          );
        }
        return tools;
      };
      return {
        tools: toolsFrom(listed),
        // An upstream down at start, or one whose changed tool an admin accepted, brings its tools later (F4).
        watchTools(update) {
          upstream.onToolsChanged((offered) => update(toolsFrom(offered)));
        },
        route: () => 'direct',
        async close() {
          await upstream.close();
        },
      };
    },
  });
}

/** The upstream's input schema as a validator; `$schema` is dropped, so a draft-07 schema compiles as 2020-12 (its keywords agree). */
function compileInputSchema(ajv: Ajv2020, schema: Tool['inputSchema']): (value: unknown) => string | undefined {
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  const check = ajv.compile(rest);
  return (value) => (check(value) ? undefined : ajv.errorsText(check.errors));
}

/** The text parts of a result, joined. */
function resultText(result: CallToolResult): string {
  return result.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n')
    .trim();
}
