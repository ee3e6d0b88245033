import type { IncomingMessage } from 'node:http';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** What a host answers a request with directly: a JSON-RPC result, or an error. */
export type DirectAnswer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } };

/** One JSON-RPC request the host may answer itself. */
interface DirectRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A request of an open session, sorted: one JSON-RPC request the host may answer directly
 * (`request`), a body the SDK would refuse, refused with the SDK's own answer (`refused`), or
 * anything else, for the SDK's transport with the body read so far (`pass`).
 */
export type SortedRequest =
  | { readonly kind: 'request'; readonly message: DirectRequest; readonly parsedBody: unknown }
  | { readonly kind: 'refused'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'pass'; readonly parsedBody: unknown };

function refused(status: number, code: number, message: string): SortedRequest {
  return { kind: 'refused', status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a POST the way the SDK's Streamable HTTP transport does (the same header checks, body
 * limit and refusals) and says whether it is a single JSON-RPC request. A request whose headers the
 * transport would refuse or treat otherwise (a GET, a DELETE, a missing Accept, another protocol
 * version) is passed on unread, so the transport answers it exactly as before.
 */
export async function readDirectRequest(request: IncomingMessage, parsedBody: unknown): Promise<SortedRequest> {
  const accept = request.headers.accept ?? '';
  const version = request.headers['mcp-protocol-version'];
  if (
    request.method !== 'POST' ||
    !accept.includes('application/json') ||
    !accept.includes('text/event-stream') ||
    !isJsonContentType(request.headers['content-type'] ?? null) ||
    (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
  )
    return { kind: 'pass', parsedBody };
  let message = parsedBody;
  if (message === undefined) {
    const text = await bodyText(request, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (text === undefined) return refused(413, -32000, requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE));
    try {
      message = JSON.parse(text);
    } catch {
      return refused(400, -32700, 'Parse error: Invalid JSON');
    }
  }
  if (
    isRecord(message) &&
    message.jsonrpc === '2.0' &&
    (typeof message.id === 'string' || Number.isInteger(message.id)) &&
    typeof message.method === 'string' &&
    (message.params === undefined || isRecord(message.params))
  )
    return {
      kind: 'request',
      message: { id: message.id as string | number, method: message.method, params: (message.params ?? {}) as Record<string, unknown> },
      parsedBody: message,
    };
  return { kind: 'pass', parsedBody: message };
}

/** The body as text, or undefined when it is longer than `limit` bytes. */
async function bodyText(request: IncomingMessage, limit: number): Promise<string | undefined> {
  if (Number(request.headers['content-length']) > limit) return undefined;
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    if (length > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
