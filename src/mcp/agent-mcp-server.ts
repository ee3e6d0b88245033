import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { OpsgateError } from '../core/errors/index.ts';
import { type Identity, throughChannel } from '../core/identity/index.ts';
import { type ApprovalInterrupt, type Decision, HUMAN_INPUT_TOOL, type Runtime, type TurnResult } from '../core/runtime/index.ts';

export interface AgentMcpServerOptions {
  readonly runtime: Runtime;
  readonly agent: string;
  /** Who the MCP client acts for; every call is made, bound and audited as this person. */
  readonly identity: Identity;
  /**
   * How long a mutable call waits for a decision in the web panel when the client cannot answer
   * an elicitation. Default 10 minutes.
   */
  readonly approvalWaitMs?: number;
}

const DEFAULT_APPROVAL_WAIT_MS = 10 * 60 * 1000;

function text(value: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
    ...(isError ? { isError: true } : {}),
  };
}

/** A refused decision (an OpsgateError) means "not this person"; anything else is a fault. */
function refusedOnly(error: unknown): undefined {
  if (OpsgateError.isInstance(error)) return undefined;
  throw error;
}

/** What the person is asked in the MCP client before a state change runs. */
function approvalMessage(interrupt: ApprovalInterrupt): string {
  const lines = [
    `opsgate: approve ${interrupt.tool} (risk ${interrupt.risk})?`,
    `arguments: ${JSON.stringify(interrupt.args)}`,
    ...(interrupt.preview ? [interrupt.preview.summary] : []),
    ...(interrupt.verdict ? [`validator: ${interrupt.verdict.verdict} — ${interrupt.verdict.reason}`] : []),
    ...(interrupt.expiresAt ? [`expires ${interrupt.expiresAt}`] : []),
  ];
  return lines.join('\n');
}

/** The result the client sees: the tool's output, or why it did not run. */
function outcome(result: TurnResult): CallToolResult {
  const last = result.messages.filter((m) => m.role === 'tool').at(-1)?.toolResult;
  if (!last) return text({ status: result.status, message: 'The call produced no result.' }, true);
  return text(last.output, last.isError);
}

/**
 * Serves one agent's guarded tools over MCP. Read-only tools run at once; a mutable call waits
 * for a person — through MCP elicitation when the client supports it, else in the web approval
 * panel — and runs only once approved. Annotations are hints for the client; opsgate's own
 * policy decides, exactly as for a model's calls.
 */
export async function createAgentMcpServer(options: AgentMcpServerOptions): Promise<McpServer> {
  const { runtime, identity } = options;
  const info = runtime.agents().find((a) => a.name === options.agent);
  if (!info) throw new Error(`unknown agent ${options.agent}`);
  const startSession = () => runtime.startSession({ agent: info.name, identity, title: `${info.title} over MCP`, options: { via: 'mcp' } });
  let session = await startSession();
  /**
   * A call left waiting for an approver keeps its session waiting (it stays in the inbox and runs
   * if approved there); the client's next call gets a session of its own instead of SESSION_BUSY.
   */
  let sessionWaitsForApprover = false;
  const mcp = new McpServer(
    { name: `opsgate-${info.name}`, version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: info.notice ?? info.description },
  );
  const server = mcp.server;
  const tools = info.tools.filter((t) => t.name !== HUMAN_INPUT_TOOL);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.mutability === 'mutable' ? `${tool.description} (A person approves it before it runs.)` : tool.description,
      inputSchema: { type: 'object' as const, ...tool.inputSchema },
      annotations: {
        readOnlyHint: tool.mutability === 'read-only',
        destructiveHint: tool.mutability === 'mutable',
        openWorldHint: true,
      },
    })),
  }));

  /** Waits for a decision made elsewhere (the web panel, another approver). */
  const waitForDecision = async (callId: string): Promise<TurnResult | undefined> => {
    const { id } = session;
    const deadline = Date.now() + (options.approvalWaitMs ?? DEFAULT_APPROVAL_WAIT_MS);
    while (Date.now() < deadline) {
      const current = await runtime.getSession(id, identity);
      if (current.interrupt?.callId !== callId && current.status !== 'running') {
        const messages = current.messages.filter((m) => m.role === 'tool');
        return { status: 'completed', messages: messages.slice(-1), session: current };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return undefined;
  };

  const ask = async (interrupt: ApprovalInterrupt): Promise<Decision | undefined> => {
    if (!server.getClientCapabilities()?.elicitation) return undefined;
    const answer = await server.elicitInput({
      message: approvalMessage(interrupt),
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            enum: ['approve', 'reject'],
            description: 'Approve runs exactly these arguments once.',
          },
          reason: { type: 'string', title: 'Reason (when rejecting)' },
        },
        required: ['decision'],
      },
    });
    if (answer.action === 'accept' && answer.content?.decision === 'approve') return { type: 'approve', callId: interrupt.callId };
    const reason =
      typeof answer.content?.reason === 'string' && answer.content.reason ? answer.content.reason : `${answer.action} in the MCP client`;
    return { type: 'reject', callId: interrupt.callId, reason };
  };

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    if (!tools.some((t) => t.name === name)) return text(`There is no tool named "${name}" on the ${info.name} agent.`, true);
    try {
      if (sessionWaitsForApprover) {
        session = await startSession();
        sessionWaitsForApprover = false;
      }
      let result = await runtime.callTool(session.id, { tool: name, args: request.params.arguments ?? {} }, identity);
      if (result.status === 'waiting' && result.interrupt?.type === 'approval') {
        const interrupt = result.interrupt;
        const decision = await ask(interrupt);
        // The client's answer is the requester's own decision; where the policy does not let the
        // requester decide (high risk), the call keeps waiting for an eligible approver.
        const answered = decision
          ? await runtime.decide(session.id, decision, throughChannel(identity, 'mcp-elicitation')).catch(refusedOnly)
          : undefined;
        if (answered) {
          result = answered;
        } else {
          const decided = await waitForDecision(interrupt.callId);
          if (!decided) {
            sessionWaitsForApprover = true;
            return text(
              `Waiting for approval of ${interrupt.tool} in the opsgate web panel (session ${session.id}); nothing ran. Ask a person to decide, then call again.`,
              true,
            );
          }
          result = decided;
        }
      }
      if (result.status === 'waiting' && result.interrupt?.type === 'continue') {
        // Still running past its soft timeout: the client gets what it has so far and can read on.
        const partial = outcome(result);
        await runtime.decide(session.id, { type: 'continue', callId: result.interrupt.callId }, identity);
        return partial;
      }
      return outcome(result);
    } catch (error) {
      if (OpsgateError.isInstance(error)) return text({ error: error.message, code: error.code }, true);
      throw error;
    }
  });

  return mcp;
}
