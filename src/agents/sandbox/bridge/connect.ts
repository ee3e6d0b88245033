import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SandboxEngine } from '../engines/engine.ts';
import { mcpChannel, type SandboxChannel } from './channel.ts';
import { createSandboxMcpServer } from './mcp-server.ts';

/** A connected MCP client of a sandbox server, and how to hang up. */
export interface SandboxConnection {
  readonly client: Client;
  readonly channel: SandboxChannel;
  close(): Promise<void>;
}

const OPSGATE_BIN = fileURLToPath(new URL('../../../../bin/opsgate', import.meta.url));

async function connect(transport: Transport, onClose: () => Promise<void> = async () => {}): Promise<SandboxConnection> {
  const client = new Client({ name: 'opsgate-db-bridge', version: '0.1.0' });
  await client.connect(transport);
  return {
    client,
    channel: mcpChannel(client),
    async close() {
      await client.close();
      await onClose();
    },
  };
}

/** Serves `engine` in process and connects to it over the SDK's in-memory transport (a real MCP hop). */
export async function connectInMemory(engine: SandboxEngine): Promise<SandboxConnection> {
  const server = createSandboxMcpServer(engine);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  return connect(clientTransport, () => server.close());
}

/** Spawns `opsgate mcp-server sandbox --db FILE` and talks to it over stdio. */
export async function connectStdio(args: readonly string[], options: { command?: string } = {}): Promise<SandboxConnection> {
  const transport = new StdioClientTransport({
    command: options.command ?? OPSGATE_BIN,
    args: ['mcp-server', 'sandbox', ...args],
    stderr: 'pipe',
  });
  return connect(transport);
}
