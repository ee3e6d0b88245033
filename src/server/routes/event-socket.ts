import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { OpsgateError } from '../../core/errors/index.ts';
import type { Runtime } from '../../core/runtime/runtime-api.ts';
import type { SessionEvent } from '../../core/runtime/types.ts';
import { parseInput } from '../parse-input.ts';

const params = z.object({ sessionId: z.string().min(1).max(100) });
const query = z.object({ after: z.coerce.number().int().min(0).default(0) });

/** Frames the server sends. */
export type SocketFrame =
  | { readonly type: 'event'; readonly event: SessionEvent }
  | { readonly type: 'ready'; readonly lastSeq: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string };

/**
 * Streams one session's events: first everything after `?after=N`, then live. It subscribes before
 * it reads the backlog and drops anything at or below the last sequence sent, so a reconnecting
 * client that passes its last seen seq gets every event exactly once.
 */
export function startEventStream(
  runtime: Runtime,
  sessionId: string,
  after: number,
  send: (frame: SocketFrame) => void,
): { ready: Promise<void>; stop: () => void } {
  let lastSent = after;
  let live = false;
  const pending: SessionEvent[] = [];
  const deliver = (event: SessionEvent) => {
    if (event.seq <= lastSent) return;
    lastSent = event.seq;
    send({ type: 'event', event });
  };
  const unsubscribe = runtime.events.subscribe(sessionId, (event) => {
    if (live) deliver(event);
    else pending.push(event);
  });
  const ready = (async () => {
    for (const event of await runtime.events.since(sessionId, after)) deliver(event);
    pending.sort((a, b) => a.seq - b.seq);
    for (const event of pending.splice(0)) deliver(event);
    live = true;
    send({ type: 'ready', lastSeq: lastSent });
  })();
  return { ready, stop: unsubscribe };
}

/** WebSocket `/api/sessions/:sessionId/socket?after=N` inside the authenticated context. */
export function eventSocketRoute(app: FastifyInstance, runtime: Runtime): void {
  app.get(
    '/api/sessions/:sessionId/socket',
    {
      websocket: true,
      // Checked before the upgrade, so a forbidden caller gets a plain HTTP error.
      preHandler: async (request) => {
        const { sessionId } = parseInput(params, request.params, 'params');
        await runtime.getSession(sessionId, request.identity);
      },
    },
    (socket: WebSocket, request) => {
      const { sessionId } = parseInput(params, request.params, 'params');
      const { after } = parseInput(query, request.query, 'query');
      const stream = startEventStream(runtime, sessionId, after, (frame) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      });
      stream.ready.catch((error: unknown) => {
        const failure = OpsgateError.isInstance(error) ? error : undefined;
        request.log.warn({ err: error }, 'event stream failed');
        if (socket.readyState === socket.OPEN) {
          socket.send(
            JSON.stringify({
              type: 'error',
              code: failure?.code ?? 'INTERNAL',
              message: failure?.message ?? 'The event stream failed; reconnect.',
            }),
          );
          socket.close(1011);
        }
      });
      socket.on('close', () => stream.stop());
      socket.on('message', (data) => {
        if (data.toString() === 'ping' && socket.readyState === socket.OPEN) socket.send('pong');
      });
    },
  );
}
