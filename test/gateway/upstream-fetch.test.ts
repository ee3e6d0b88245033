import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepAliveFetch } from '../../src/gateway/upstream-fetch.ts';

describe('keepAliveFetch (an HTTP upstream client without undici per request)', () => {
  let server: Server;
  let base: string;
  let connections = 0;
  let releaseSecondEvent: () => void = () => {};
  const client = keepAliveFetch();
  const routes: Record<string, (request: IncomingMessage, response: ServerResponse, body: string) => void> = {
    '/echo': (request, response, body) => {
      response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      response.end(JSON.stringify({ method: request.method, auth: request.headers.authorization, body }));
    },
    '/events': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      releaseSecondEvent = () => response.end('data: two\n\n');
    },
    '/accepted': (_request, response) => {
      response.writeHead(202).end();
    },
    '/moved': (_request, response) => {
      response.writeHead(307, { location: '/echo' }).end();
    },
    '/cut': (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: partial\n\n', () => setTimeout(() => request.socket.destroy(), 20));
    },
    '/slow': () => {},
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => routes[new URL(request.url ?? '/', 'http://x').pathname]?.(request, response, body));
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  });

  it('sends the method, headers and body, answers status, headers and body, and keeps one connection for many requests', async () => {
    const before = connections;
    for (let request = 0; request < 10; request++) {
      const response = await client.fetch(new URL(`${base}/echo`), {
        method: 'POST',
        headers: new Headers({ authorization: 'Bearer x', 'content-type': 'application/json' }),
        body: '{"jsonrpc":"2.0"}',
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBe('s1');
      expect(await response.json()).toEqual({ method: 'POST', auth: 'Bearer x', body: '{"jsonrpc":"2.0"}' });
    }
    expect(connections - before).toBe(1);
  });

  it('streams an event stream as it arrives, and a 202 has an empty body', async () => {
    const response = await client.fetch(`${base}/events`, { headers: { accept: 'text/event-stream' } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: one\n\n');
    releaseSecondEvent();
    expect((await reader.read()).value).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
    const accepted = await client.fetch(`${base}/accepted`, { method: 'POST', body: '{}' });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
  });

  it('follows a redirect as fetch does', async () => {
    const response = await client.fetch(`${base}/moved`, { method: 'POST', body: 'again' });
    expect(await response.json()).toMatchObject({ method: 'POST', body: 'again' });
  });

  it('fails as fetch fails: refused (nothing sent), aborted, and a stream cut mid-answer', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const refused = await client.fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });

    const controller = new AbortController();
    const pending = client.fetch(`${base}/slow`, { method: 'POST', body: '{}', signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const cut = await client.fetch(`${base}/cut`);
    const reader = cut.body!.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toBeDefined();
  });
});
