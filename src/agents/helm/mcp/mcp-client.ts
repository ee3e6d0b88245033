import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { OpsgateError } from '../../../core/errors/index.ts';
import { HelmErrors } from '../errors.ts';

/** How long a call may go without an answer or a progress report (the server reports every 15 s). */
const SILENCE_LIMIT_MS = 60_000;

/** What opsgate learned of a server tool; the annotations are recorded, never obeyed. */
export interface RemoteToolInfo {
  readonly name: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
}

/**
 * opsgate's side of the MCP hop to the Helm MCP server. Results are untrusted data: they are
 * parsed as JSON, never executed; a server error becomes a typed `OpsgateError` with its code.
 */
export class HelmMcpClient {
  readonly client: Client;
  readonly #close: () => Promise<void>;

  private constructor(client: Client, close: () => Promise<void>) {
    this.client = client;
    this.#close = close;
  }

  /** Connects over any MCP transport (stdio, streamable HTTP). */
  static async connect(transport: Transport, onClose?: () => Promise<void>): Promise<HelmMcpClient> {
    const client = new Client({ name: 'opsgate-helm-agent', version: '0.1.0' });
    await client.connect(transport);
    return new HelmMcpClient(client, async () => {
      await client.close();
      await onClose?.();
    });
  }

  /** Connects to a server in this process through a linked in-memory transport pair. */
  static async inProcess(server: McpServer): Promise<HelmMcpClient> {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    return HelmMcpClient.connect(clientTransport, () => server.close());
  }

  async listTools(): Promise<RemoteToolInfo[]> {
    const { tools } = await this.client.listTools();
    return tools.map((tool) => ({
      name: tool.name,
      ...(tool.annotations?.readOnlyHint !== undefined ? { readOnlyHint: tool.annotations.readOnlyHint } : {}),
      ...(tool.annotations?.destructiveHint !== undefined ? { destructiveHint: tool.annotations.destructiveHint } : {}),
    }));
  }

  /**
   * Calls a tool and returns its JSON answer, or throws the server's error with its code. A Helm
   * call may rightly run for many minutes (`--wait` with `--timeout` per hook and for the rollout;
   * Helm and the CLI backend's process limits bound it), so the call asks for progress and only
   * silence ends it: the SDK's default would stop every call at 60 s while `helm` runs on.
   * Aborting `signal` cancels the call, and the server kills its `helm` process.
   */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      ...(signal ? { signal } : {}),
      onprogress: () => {},
      resetTimeoutOnProgress: true,
      timeout: SILENCE_LIMIT_MS,
    });
    const content = Array.isArray(result.content) ? result.content : [];
    const text = content
      .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text)
      .join('');
    let body: unknown;
    try {
      body = result.structuredContent ?? JSON.parse(text);
    } catch {
      body = { text };
    }
    if (result.isError) {
      const error = (body as { error?: { code?: unknown; message?: unknown; status?: unknown; fields?: unknown } }).error;
      if (error && typeof error.code === 'string' && typeof error.message === 'string') {
        const status = typeof error.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 502;
        throw new OpsgateError(
          error.code,
          error.message,
          status,
          typeof error.fields === 'object' && error.fields ? (error.fields as Record<string, unknown>) : {},
        );
      }
      throw HelmErrors.HELM_MCP_ERROR({ tool: name, detail: text.slice(0, 500) || 'no detail' });
    }
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body };
  }

  async readResource(uri: string): Promise<Array<{ uri: string; mimeType?: string; text?: string }>> {
    const { contents } = await this.client.readResource({ uri });
    return contents.map((item) => ({
      uri: item.uri,
      ...(item.mimeType ? { mimeType: item.mimeType } : {}),
      ...('text' in item && typeof item.text === 'string' ? { text: item.text } : {}),
    }));
  }

  close(): Promise<void> {
    return this.#close();
  }
}
