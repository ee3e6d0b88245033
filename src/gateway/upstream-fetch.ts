import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (RFC 9110), which a `Response` refuses to carry. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

function responseOf(incoming: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = incoming.statusCode ?? 502;
  const empty = NO_BODY.has(status) || method === 'HEAD';
  if (empty) incoming.resume();
  return new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
    status,
    statusText: incoming.statusMessage ?? '',
    headers,
  });
}

/**
 * `fetch` for an HTTP upstream's MCP client, over `node:http`/`node:https` with kept-alive
 * connections: the same request and answer as the global `fetch` for what the SDK's Streamable HTTP
 * transport sends (a string body, its headers, an abort signal), without undici's per-request
 * Request/Headers/abort machinery, which cost about half of the gateway's CPU per HTTP read. A
 * connection failure rejects as `fetch` does (`TypeError('fetch failed')` with the system error as
 * its cause, so ECONNREFUSED still means "nothing was sent"); an abort rejects with the abort
 * reason. Anything else — a `Request` object, another body type, a redirect — is left to the global
 * `fetch`, so behaviour there is unchanged.
 */
export function keepAliveFetch(): { readonly fetch: typeof fetch; close(): void } {
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true });
  const send: typeof fetch = (input, init) => {
    const body = init?.body;
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string')) return fetch(input, init);
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = request(
        url,
        { method, headers, agent: url.protocol === 'https:' ? https : http, ...(signal ? { signal } : {}) },
        (incoming) => {
          const status = incoming.statusCode ?? 0;
          if (status >= 300 && status < 400 && incoming.headers.location !== undefined) {
            // Redirects as fetch follows them (method and header rules, cross-origin): the global fetch.
            incoming.resume();
            resolve(fetch(input, init));
            return;
          }
          resolve(responseOf(incoming, method));
        },
      );
      outgoing.once('error', (error) => {
        if (signal?.aborted) reject(signal.reason ?? error);
        else reject(new TypeError('fetch failed', { cause: error }));
      });
      outgoing.end(body ?? undefined);
    });
  };
  return {
    fetch: send,
    /** Closes the kept-alive connections (the upstream is closed). */
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
