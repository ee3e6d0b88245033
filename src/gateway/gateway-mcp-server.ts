import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { OpsgateError } from '../core/errors/index.ts';
import { type Identity, throughChannel } from '../core/identity/index.ts';
import type { ApprovalInterrupt, Decision, ToolCallRecord } from '../core/runtime/index.ts';
import { failureResult as failure, textResult as text } from './call-results.ts';
import type { Gateway } from './gateway.ts';
import { GatewayErrors } from './gateway-errors.ts';
import { planGatewayRead, takeRateLimits } from './gateway-read.ts';
import { masked } from './mask.ts';
import { SAFE_TOOL_NAME, withoutControls, withoutControlsInTexts } from './untrusted-text.ts';
import type { Upstream } from './upstream.ts';
import { NAMESPACE_SEPARATOR, treatmentOf, upstreamAgentName } from './upstream-agent.ts';

/** Puts the upstream before a resource URI as part of its scheme: `files+file:///srv/a.txt`. */
const RESOURCE_SEPARATOR = '+';
const COLLECT_TOOL = 'gateway_collect';
/** `_meta` keys of a "waiting for approval" answer. */
export const TICKET_META = 'opsgate/ticket';
export const STATUS_META = 'opsgate/status';
const POLL_MS = 300;
const PROGRESS_EVERY_MS = 5_000;
/** How long a tools/list waits for an upstream that is down to come up (it keeps trying after). */
const LIST_CONNECT_WAIT_MS = 2_000;
const FINAL = new Set(['executed', 'failed', 'rejected', 'blocked', 'expired', 'unknown']);

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

function approvalMessage(interrupt: ApprovalInterrupt, upstream: string): string {
  return [
    `opsgate: approve ${upstream}${NAMESPACE_SEPARATOR}${interrupt.tool} (risk ${interrupt.risk}: ${interrupt.riskReason})?`,
    `arguments: ${JSON.stringify(interrupt.args)}`,
    ...(interrupt.expiresAt ? [`expires ${interrupt.expiresAt}`] : []),
  ].join('\n');
}

/** "Waiting for alice or admin to approve it": who may decide, as the requester reads it. */
function waitingFor(interrupt: ApprovalInterrupt): string {
  const approvers = interrupt.eligibleApprovers;
  return approvers.length > 0
    ? `Waiting for ${approvers.length === 1 ? approvers[0] : `${approvers.slice(0, -1).join(', ')} or ${approvers.at(-1)}`} to approve it in the opsgate inbox`
    : 'Nobody may approve it under the current policy; ask an admin';
}

/** A call's id for `gateway_collect`: the runtime session and the call, so any replica can find it. */
function ticketOf(sessionId: string, callId: string): string {
  return `${sessionId}.${callId}`;
}

/**
 * The MCP server one client session talks to: every upstream's tools under `upstream__tool`, its
 * prompts under `upstream__prompt` and its resources as they are. Each call runs through the
 * runtime as the authenticated person (channel `gateway`); a call that needs approval waits on
 * the server — the inbox, the CLI, the webhooks — while the client gets progress notifications.
 */
export function createGatewayMcpServer(gateway: Gateway, person: Identity): McpServer {
  const identity = throughChannel(person, 'gateway');
  const runtime = gateway.runtime;
  const mcp = new McpServer(
    { name: 'opsgate-gateway', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
      instructions:
        'Tools of upstream MCP servers, guarded by opsgate: read-only calls run at once; a state-changing call waits until a person approves it on the opsgate server. If a call returns "waiting for approval", call gateway_collect with its ticket later.',
    },
  );
  const server = mcp.server;
  // A client that listed the tools hears when an upstream's set changes (one came up late, F4).
  const unsubscribe = [...gateway.upstreams.values()].map((upstream) =>
    upstream.onToolsChanged(() => {
      server.sendToolListChanged().catch(() => {});
    }),
  );
  const previousOnClose = server.onclose;
  server.onclose = () => {
    for (const stop of unsubscribe) stop();
    previousOnClose?.();
  };

  const offered = async (): Promise<Tool[]> => {
    const tools: Tool[] = [];
    const upstreams = [...gateway.upstreams.values()];
    await Promise.all(upstreams.map((upstream) => upstream.tryConnect(LIST_CONNECT_WAIT_MS)));
    for (const upstream of upstreams) {
      await upstream.review();
      for (const tool of upstream.tools) {
        const treatment = treatmentOf(tool, upstream.config.tools[tool.name], upstream.config.trusted);
        if (!treatment.offered) continue;
        const mutable = treatment.mutability === 'mutable';
        tools.push({
          ...tool,
          // Property descriptions and titles are upstream text a client shows and a model reads.
          inputSchema: withoutControlsInTexts(tool.inputSchema),
          ...(tool.outputSchema ? { outputSchema: withoutControlsInTexts(tool.outputSchema) } : {}),
          name: `${upstream.name}${NAMESPACE_SEPARATOR}${tool.name}`,
          ...(tool.title ? { title: withoutControls(tool.title) } : {}),
          description: `${withoutControls(tool.description ?? tool.name)}${mutable ? ' (A person approves it on the opsgate server before it runs.)' : ''}`,
          // A run pin lets a call through without approval; it does not make a write a read (F7).
          annotations: {
            ...tool.annotations,
            ...(tool.annotations?.title ? { title: withoutControls(tool.annotations.title) } : {}),
            readOnlyHint: !mutable && tool.annotations?.readOnlyHint === true,
          },
        });
      }
    }
    tools.push({
      name: COLLECT_TOOL,
      description: 'The outcome of a call that was waiting for approval: pass the ticket its "waiting for approval" result gave.',
      inputSchema: { type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] },
      annotations: { readOnlyHint: true },
    });
    return tools;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await offered() }));

  /** What the client gets for a finished call: the upstream's exact result when it ran here, else the stored one. */
  const finished = (call: ToolCallRecord): CallToolResult => {
    if (call.status === 'executed') return gateway.takeResult(call.id) ?? (call.result as CallToolResult);
    const raw = gateway.takeResult(call.id);
    if (raw) return raw;
    if (call.status === 'rejected')
      return text(`Rejected by ${call.rejection?.by ?? 'an approver'}: ${call.rejection?.reason ?? 'no reason given'}. Nothing ran.`, true);
    if (call.status === 'unknown')
      return text(`${call.error ?? 'The upstream went away during the call.'} (call ${call.id} is recorded as unknown.)`, true);
    return text({ status: call.status, error: call.error ?? `the call ended ${call.status}` }, true);
  };

  /** Waits for the call's decision and execution, wherever they happen; undefined at the deadline. */
  const waitFor = async (
    sessionId: string,
    callId: string,
    extra: Extra,
    who = 'waiting for a person to approve',
  ): Promise<ToolCallRecord | undefined> => {
    const deadline = Date.now() + gateway.config.approvalWaitSeconds * 1000;
    const token = extra._meta?.progressToken;
    let lastProgress = 0;
    let progress = 0;
    while (!extra.signal.aborted) {
      const session = await runtime.getSession(sessionId, identity);
      const call = session.toolCalls.find((c) => c.id === callId);
      if (call && FINAL.has(call.status) && session.status !== 'running') return call;
      if (Date.now() >= deadline) return undefined;
      if (token !== undefined && Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: ++progress,
            // Once decided, the wait is the upstream's: say so rather than who may approve (F11).
            message:
              call?.status === 'approved' || call?.status === 'executing'
                ? `approved; running on the upstream (${call.status})`
                : `${who} (${call?.status ?? 'pending'})`,
          },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return undefined;
  };

  /** Asks the client's person through elicitation; their answer is their own decision (channel `mcp-elicitation`). */
  /**
   * Asks the client's person through elicitation; their answer is their own decision (channel
   * `mcp-elicitation`). When the policy does not let them approve this call (F10), they are only
   * offered to withdraw it, and told who can approve it.
   */
  const elicit = async (sessionId: string, interrupt: ApprovalInterrupt, upstream: string): Promise<void> => {
    if (!server.getClientCapabilities()?.elicitation) return;
    const mayApprove = interrupt.eligibleApprovers.includes(person.username) && interrupt.risk !== 'high' && interrupt.risk !== 'critical';
    const choices = mayApprove ? ['approve', 'reject'] : ['keep waiting', 'withdraw'];
    // A client that fails the elicitation (or answers outside the offered choices) decides nothing:
    // the call keeps waiting for an approver.
    const answer = await server
      .elicitInput({
        message: mayApprove
          ? approvalMessage(interrupt, upstream)
          : `${approvalMessage(interrupt, upstream).replace('opsgate: approve', 'opsgate: waiting for')}\n${waitingFor(interrupt)}. You may withdraw the call.`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: choices },
            reason: { type: 'string', title: mayApprove ? 'Reason (when rejecting)' : 'Reason (when withdrawing)' },
          },
          required: ['decision'],
        },
      })
      .catch(() => undefined);
    if (!answer) return;
    const chosen = answer.action === 'accept' ? answer.content?.decision : undefined;
    if (!mayApprove && chosen === 'keep waiting') return;
    const decision: Decision =
      chosen === 'approve'
        ? { type: 'approve', callId: interrupt.callId }
        : {
            type: 'reject',
            callId: interrupt.callId,
            reason:
              typeof answer.content?.reason === 'string' && answer.content.reason
                ? answer.content.reason
                : chosen === 'withdraw'
                  ? 'withdrawn by the requester in the MCP client'
                  : `${answer.action} in the MCP client`,
          };
    try {
      await runtime.decide(sessionId, decision, throughChannel(person, 'mcp-elicitation'));
    } catch (error) {
      // The policy does not let the requester decide this call: it waits for an eligible approver.
      if (!OpsgateError.isInstance(error)) throw error;
    }
  };

  const collect = async (ticket: unknown, extra: Extra): Promise<CallToolResult> => {
    const [sessionId, callId] = typeof ticket === 'string' ? ticket.split('.') : [];
    if (!sessionId || !callId) throw GatewayErrors.GATEWAY_CALL_NOT_FOUND({ callId: String(ticket) });
    const session = await runtime.getSession(sessionId, identity).catch(() => undefined);
    if (!session || session.userId !== person.userId || !session.toolCalls.some((c) => c.id === callId))
      throw GatewayErrors.GATEWAY_CALL_NOT_FOUND({ callId: String(ticket) });
    const call = await waitFor(sessionId, callId, extra);
    return call ? finished(call) : waiting(sessionId, callId);
  };

  // An error result: clients check a non-error result against the upstream tool's outputSchema
  // (F1), and "nothing ran yet" is not the tool's output. The ticket rides in the text and `_meta`.
  const waiting = (sessionId: string, callId: string): CallToolResult => ({
    content: [
      {
        type: 'text',
        text: `Waiting for approval on the opsgate server; nothing has run yet. Call ${COLLECT_TOOL} with {"ticket": "${ticketOf(sessionId, callId)}"} later for the outcome.`,
      },
    ],
    isError: true,
    _meta: { [TICKET_META]: ticketOf(sessionId, callId), [STATUS_META]: 'waiting_for_approval' },
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    try {
      if (name === COLLECT_TOOL) return await collect(args.ticket, extra);
      const at = name.indexOf(NAMESPACE_SEPARATOR);
      const upstream = at > 0 ? gateway.upstreams.get(name.slice(0, at)) : undefined;
      const tool = at > 0 ? name.slice(at + NAMESPACE_SEPARATOR.length) : '';
      // An upstream that is down (or was down at start) is tried now: down, the answer says so (F4).
      if (upstream && upstream.status().state !== 'up' && !upstream.tools.some((t) => t.name === tool)) await upstream.start();
      if (upstream?.held.has(tool)) throw GatewayErrors.GATEWAY_TOOL_CHANGED({ upstream: upstream.name, tool });
      if (!upstream || !upstream.tools.some((t) => t.name === tool))
        return text(`There is no tool named "${name}" on this gateway. List the tools to see what is offered.`, true);
      if (upstream.config.tools[tool]?.policy === 'deny') throw GatewayErrors.GATEWAY_TOOL_DENIED({ tool: name });
      // The read fast path: a read the policy runs needs no session; anything else takes the session path below.
      const read = await planGatewayRead(gateway, identity, name, args);
      if (read) return await read();
      takeRateLimits(gateway, identity, name);
      const agent = upstreamAgentName(upstream.name);
      const session = await gateway.pool.acquire(identity, agent);
      const result = await runtime.callTool(session.id, { tool, args }, identity);
      if (result.status === 'waiting' && result.interrupt?.type === 'approval') {
        const interrupt = result.interrupt;
        await elicit(session.id, interrupt, upstream.name);
        const call = await waitFor(session.id, interrupt.callId, extra, waitingFor(interrupt));
        if (!call) return waiting(session.id, interrupt.callId);
        gateway.pool.release(identity, agent, session);
        return finished(call);
      }
      gateway.pool.release(identity, agent, session);
      const last = result.messages.filter((m) => m.role === 'tool').at(-1)?.toolResult;
      if (!last) return text({ status: result.status, message: 'The call produced no result.' }, true);
      return gateway.takeResult(last.callId) ?? (last.isError ? text(last.output, true) : (last.output as CallToolResult));
    } catch (error) {
      return failure(error);
    }
  });

  // Prompts and resources pass through (reading them changes nothing), namespaced per upstream
  // and masked like results. A resource URI gets the upstream as a scheme prefix
  // (`files+file:///srv/a.txt`), so a read goes to the upstream that listed it and no other.
  const upstreamOf = (name: string, separator: string) => {
    const at = name.indexOf(separator);
    const upstream = at > 0 ? gateway.upstreams.get(name.slice(0, at)) : undefined;
    return upstream ? { upstream, inner: name.slice(at + separator.length) } : undefined;
  };
  const clientsWith = async (capability: 'prompts' | 'resources') => {
    const found: { upstream: Upstream; client: Client }[] = [];
    for (const upstream of gateway.upstreams.values()) {
      const client = await upstream.client().catch(() => undefined);
      if (client?.getServerCapabilities()?.[capability]) found.push({ upstream, client });
    }
    return found;
  };
  /** Runs an upstream request; its error text is masked before the client sees it. */
  const guarded = async <T>(upstream: Upstream, request: () => Promise<T>): Promise<T> => {
    try {
      return masked(await request(), upstream.config.mask);
    } catch (error) {
      const message = masked(error instanceof Error ? error.message : String(error), upstream.config.mask);
      throw new McpError(error instanceof McpError ? error.code : ErrorCode.InternalError, `${upstream.name}: ${message}`);
    }
  };

  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const prompts = [];
    for (const { upstream, client } of await clientsWith('prompts'))
      for (const prompt of await guarded(upstream, () =>
        allPages(
          (cursor) => client.listPrompts(cursor),
          (page) => page.prompts,
        ),
      ))
        if (SAFE_TOOL_NAME.test(prompt.name))
          prompts.push({ ...withoutControlsInTexts(prompt), name: `${upstream.name}${NAMESPACE_SEPARATOR}${prompt.name}` });
    return { prompts };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const found = upstreamOf(request.params.name, NAMESPACE_SEPARATOR);
    if (!found)
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no prompt named "${request.params.name}" on this gateway. List the prompts to see what is offered.`,
      );
    const client = await found.upstream.client();
    return guarded(found.upstream, () => client.getPrompt({ ...request.params, name: found.inner }));
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const resources = [];
    for (const { upstream, client } of await clientsWith('resources'))
      for (const resource of await guarded(upstream, () =>
        allPages(
          (cursor) => client.listResources(cursor),
          (page) => page.resources,
        ),
      ))
        resources.push({
          ...withoutControlsInTexts(resource),
          name: withoutControls(resource.name),
          uri: `${upstream.name}${RESOURCE_SEPARATOR}${resource.uri}`,
        });
    return { resources };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const resourceTemplates = [];
    for (const { upstream, client } of await clientsWith('resources'))
      for (const template of await guarded(upstream, () =>
        allPages(
          (cursor) => client.listResourceTemplates(cursor),
          (page) => page.resourceTemplates,
        ),
      ))
        resourceTemplates.push({
          ...withoutControlsInTexts(template),
          name: withoutControls(template.name),
          uriTemplate: `${upstream.name}${RESOURCE_SEPARATOR}${template.uriTemplate}`,
        });
    return { resourceTemplates };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const found = upstreamOf(request.params.uri, RESOURCE_SEPARATOR);
    if (!found)
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no resource "${request.params.uri}" on this gateway: resource URIs start with their upstream's name and "+". List the resources to see what is offered.`,
      );
    const client = await found.upstream.client();
    const read = await guarded(found.upstream, () => client.readResource({ ...request.params, uri: found.inner }));
    return {
      ...read,
      contents: read.contents.map((content) => ({ ...content, uri: `${found.upstream.name}${RESOURCE_SEPARATOR}${content.uri}` })),
    };
  });
  return mcp;
}

/** Every page of an upstream list (its `nextCursor` followed). */
async function allPages<Page extends { nextCursor?: string | undefined }, Item>(
  list: (params: { cursor: string } | undefined) => Promise<Page>,
  items: (page: Page) => Item[],
): Promise<Item[]> {
  const all: Item[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor ? { cursor } : undefined);
    all.push(...items(page));
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
