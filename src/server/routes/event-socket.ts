import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { OpsgateError } from '../../core/errors/index.ts';
import type { Runtime } from '../../core/runtime/runtime-api.ts';
import type { SessionEvent } from '../../core/runtime/types.ts';
import type { Authenticator } from '../authenticate.ts';
import type { IdentityChanges } from '../identity-changes.ts';
import { parseInput } from '../parse-input.ts';

const params = z.object({ sessionId: z.string().min(1).max(100) });
const query = z.object({ after: z.coerce.number().int().min(0).default(0) });

/** Frames the server sends. */
type SocketFrame =
  | { readonly type: 'event'; readonly event: SessionEvent }
  | { readonly type: 'ready'; readonly lastSeq: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string };

/**
 * Streams one session's events: first everything after `?after=N`, then live. It subscribes before
 * it reads the backlog and drops anything at or below the last sequence sent, so a reconnecting
 * client that passes its last seen seq gets every event exactly once.
 */
function startEventStream(
  runtime: Runtime,
  sessionId: string,
  after: number,
  send: (frame: SocketFrame) => void,
  /** Resolves once other news this stream depends on is heard from other replicas; `ready` waits for it. */
  alsoListening: Promise<void> = Promise.resolve(),
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
    await alsoListening;
    for (const event of await runtime.events.since(sessionId, after)) deliver(event);
    pending.sort((a, b) => a.seq - b.seq);
    for (const event of pending.splice(0)) deliver(event);
    live = true;
    send({ type: 'ready', lastSeq: lastSent });
  })();
  return { ready, stop: unsubscribe };
}

/** How often an idle socket checks that its credential still counts. Default 30 s. */
const SOCKET_RECHECK_MS = 30_000;

/** Close code for a socket whose person signed out, changed password, was disabled or lost access. */
const SOCKET_CLOSE_UNAUTHORIZED = 4401;

export interface SocketAuthorization {
  readonly authenticator: Authenticator;
  readonly changes: IdentityChanges;
  readonly recheckMs?: number;
}

/**
 * Keeps checking that the person behind an open socket may still watch the session: before each
 * batch of frames is sent, periodically, and at once when this process hears that the person's
 * credentials or roles changed. The session is asked again only when the roles differ from the
 * last check (owning a session does not change).
 */
function watchAuthorization(
  runtime: Runtime,
  sessionId: string,
  request: FastifyRequest,
  auth: SocketAuthorization,
  onRevoked: () => void,
): { allowed: () => Promise<boolean>; stop: () => void } {
  let lastRoles = request.identity.roles.join(',');
  let revoked = false;
  const allowed = async (): Promise<boolean> => {
    if (revoked) return false;
    const found = await auth.authenticator.identify(request.credential).catch(() => undefined);
    let ok = found !== undefined && found.identity.userId === request.identity.userId;
    if (ok && found && found.identity.roles.join(',') !== lastRoles) {
      ok = await runtime.getSession(sessionId, found.identity).then(
        () => true,
        () => false,
      );
      if (ok) lastRoles = found.identity.roles.join(',');
    }
    if (!ok && !revoked) {
      revoked = true;
      onRevoked();
    }
    return ok;
  };
  const check = () => void allowed().catch(() => {});
  const timer = setInterval(check, auth.recheckMs ?? SOCKET_RECHECK_MS);
  timer.unref();
  const unsubscribe = auth.changes.subscribe(request.identity.userId, check);
  return {
    allowed,
    stop: () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}

/** WebSocket `/api/sessions/:sessionId/socket?after=N` inside the authenticated context. */
export function eventSocketRoute(app: FastifyInstance, runtime: Runtime, auth: SocketAuthorization): void {
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
      const send = (frame: SocketFrame) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      };
      const watch = watchAuthorization(runtime, sessionId, request, auth, () => {
        send({ type: 'error', code: 'AUTH_REQUIRED', message: 'You were signed out or lost access to this session. Sign in again.' });
        socket.close(SOCKET_CLOSE_UNAUTHORIZED, 'signed out or no longer authorized');
      });
      // Frames wait while the credential is checked; one check covers every frame queued before it.
      const queue: SocketFrame[] = [];
      let pumping = false;
      const pump = async () => {
        pumping = true;
        try {
          while (queue.length > 0) {
            const batch = queue.splice(0);
            if (!(await watch.allowed())) {
              queue.length = 0;
              break;
            }
            for (const frame of batch) send(frame);
          }
        } finally {
          pumping = false;
        }
      };
      // `ready` is sent once a sign-out on another replica would also be heard here.
      const stream = startEventStream(
        runtime,
        sessionId,
        after,
        (frame) => {
          queue.push(frame);
          if (!pumping) void pump();
        },
        auth.changes.listening(),
      );
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
      socket.on('close', () => {
        stream.stop();
        watch.stop();
      });
      socket.on('message', (data) => {
        if (data.toString() === 'ping' && socket.readyState === socket.OPEN) socket.send('pong');
      });
    },
  );
}
