import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Reply, refusal, render } from './replies.ts';
import { checkRequest, type Protocol, type Violation } from './request-rules.ts';

/** A request opsgate sent, with every documented rule it broke. */
export interface SeenRequest {
  readonly protocol: Protocol;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  readonly stream: boolean;
  readonly violations: readonly Violation[];
}

interface Route {
  readonly protocol: Protocol;
  readonly stream: (body: Record<string, unknown>) => boolean;
  readonly model: (body: Record<string, unknown>) => string;
}

const bodyStream = (body: Record<string, unknown>) => body.stream === true;
const bodyModel = (body: Record<string, unknown>) => String(body.model);

/** The route for a path under the base URL each provider is given (see `baseUrls`). */
function route(path: string): Route | undefined {
  if (path === '/openai/v1/chat/completions') return { protocol: 'openai-chat', stream: bodyStream, model: bodyModel };
  if (path === '/openai/v1/responses') return { protocol: 'openai-responses', stream: bodyStream, model: bodyModel };
  if (path === '/compatible/v1/chat/completions') return { protocol: 'compatible', stream: bodyStream, model: bodyModel };
  if (path === '/anthropic/v1/messages') return { protocol: 'anthropic', stream: bodyStream, model: bodyModel };
  const bedrock = /^\/bedrock\/model\/([^/]+)\/(converse|converse-stream)$/.exec(path);
  if (bedrock) return { protocol: 'bedrock', stream: () => bedrock[2] === 'converse-stream', model: () => decodeURIComponent(bedrock[1]!) };
  const google = /^\/google\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (google) return { protocol: 'google', stream: () => google[2] === 'streamGenerateContent', model: () => google[1]! };
  return undefined;
}

/**
 * A local HTTP server that speaks each provider's wire protocol. Every request is checked against
 * the provider's published rules (`request-rules.ts`); a request that breaks one is answered 400
 * with the rule named, the way the provider would refuse it, and kept in `violations`. Otherwise
 * the next scripted reply for that protocol is sent, rendered in the provider's own format.
 */
export class WireServer {
  readonly requests: SeenRequest[] = [];
  readonly #queues = new Map<Protocol, Reply[]>();
  readonly #server: Server;
  #url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://wire');
        const found = req.method === 'POST' ? route(url.pathname) : undefined;
        if (!found) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: `no route ${req.method} ${url.pathname}` }));
          return;
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          res.writeHead(400).end('{"error":"body is not JSON"}');
          return;
        }
        const violations = checkRequest(found.protocol, body);
        const stream = found.stream(body);
        this.requests.push({ protocol: found.protocol, path: url.pathname, headers: req.headers, body, stream, violations });
        if (violations.length > 0) {
          const refused = refusal(found.protocol, violations.map((v) => `${v.rule}: ${v.detail}`).join('; '));
          res.writeHead(refused.status, refused.headers).end(refused.body);
          return;
        }
        const reply = this.#queues.get(found.protocol)?.shift();
        if (!reply) {
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: `wire server: no reply scripted for ${found.protocol}` } }));
          return;
        }
        const response = render(found.protocol, reply, stream, found.model(body));
        res.writeHead(response.status, response.headers).end(response.body);
      });
    });
  }

  /** Queues what the provider answers next, in order. */
  script(protocol: Protocol, ...replies: Reply[]): void {
    const queue = this.#queues.get(protocol) ?? [];
    queue.push(...replies);
    this.#queues.set(protocol, queue);
  }

  /** Forgets every request and every reply still queued (between tests). */
  reset(): void {
    this.requests.length = 0;
    this.#queues.clear();
  }

  /** Replies scripted but never asked for. */
  unused(protocol: Protocol): number {
    return this.#queues.get(protocol)?.length ?? 0;
  }

  /** Every rule broken so far, as `rule: detail` lines. */
  violations(): string[] {
    return this.requests.flatMap((r) => r.violations.map((v) => `${r.protocol} ${v.rule}: ${v.detail}`));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * The environment that points opsgate's real provider code at this server: each provider's
   * base-URL variable and a fake key (Bedrock signs with SigV4 client-side from fake credentials).
   */
  env(provider: ProviderUnderTest, model = 'wire-model'): Record<string, string> {
    const url = this.#url;
    const common = { OPSGATE_MODEL: `${provider}:${model}` };
    switch (provider) {
      case 'openai':
      case 'openai-chat':
        return { ...common, OPENAI_API_KEY: 'sk-wire-test', OPENAI_BASE_URL: `${url}/openai/v1` };
      case 'anthropic':
        return { ...common, ANTHROPIC_API_KEY: 'sk-ant-wire-test', ANTHROPIC_BASE_URL: `${url}/anthropic/v1` };
      case 'bedrock':
        return {
          ...common,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'AKIAWIRETEST0000000',
          AWS_SECRET_ACCESS_KEY: 'wire-secret-access-key-for-tests-only',
          AWS_ENDPOINT_URL_BEDROCK_RUNTIME: `${url}/bedrock`,
        };
      case 'google':
        return { ...common, GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-wire-test', GOOGLE_GENERATIVE_AI_BASE_URL: `${url}/google/v1beta` };
      case 'compatible':
        return { ...common, OPSGATE_MODEL_BASE_URL: `${url}/compatible/v1`, OPSGATE_MODEL_API_KEY: 'ollama' };
    }
  }
}

/** opsgate's provider names, each with the wire protocol it speaks. */
export const PROVIDERS = {
  'openai-chat': 'openai-chat',
  openai: 'openai-responses',
  anthropic: 'anthropic',
  bedrock: 'bedrock',
  google: 'google',
  compatible: 'compatible',
} as const satisfies Record<string, Protocol>;

export type ProviderUnderTest = keyof typeof PROVIDERS;
