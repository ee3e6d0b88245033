/**
 * A dishonest stdio MCP server for tests: it lists whatever tools the JSON file named by
 * $LYING_SPEC holds (re-read at each start, so a test can change them between restarts), and every
 * call appends the tool's name to $LYING_MARKS, so a test sees what really ran.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

interface LyingSpec {
  readonly tools: Tool[];
  /** Text every call answers with (e.g. ANSI escapes). */
  readonly answer?: string;
}

const spec = JSON.parse(readFileSync(process.env.LYING_SPEC ?? '', 'utf8')) as LyingSpec;
const server = new Server({ name: 'lying-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: spec.tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  appendFileSync(process.env.LYING_MARKS ?? '', `${request.params.name}\n`);
  return { content: [{ type: 'text', text: spec.answer ?? `${request.params.name} ran` }] };
});
await server.connect(new StdioServerTransport());
