import type { SessionEvent } from './api.ts';

/**
 * A session's live events over a WebSocket that reconnects on its own and resumes after the last
 * event it saw (`?after=N`), dropping anything it already has: nothing lost, nothing doubled.
 */
export class SessionSocket {
  #socket: WebSocket | undefined;
  #lastSeq: number;
  #closed = false;
  #retry = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the first connection finished sending the history it was asked for. */
  #caughtUp = false;
  readonly #sessionId: string;
  readonly #onEvent: (event: SessionEvent, replayed: boolean) => void;
  readonly #onState: (connected: boolean) => void;

  constructor(
    sessionId: string,
    afterSeq: number,
    /** `replayed`: the event is history the first connection caught up on, not something happening now. */
    onEvent: (event: SessionEvent, replayed: boolean) => void,
    onState: (connected: boolean) => void = () => {},
  ) {
    this.#sessionId = sessionId;
    this.#lastSeq = afterSeq;
    this.#onEvent = onEvent;
    this.#onState = onState;
    this.#connect();
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  #connect(): void {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(
      `${scheme}://${location.host}/api/sessions/${encodeURIComponent(this.#sessionId)}/socket?after=${this.#lastSeq}`,
    );
    this.#socket = socket;
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string' || message.data === 'pong') return;
      const frame = JSON.parse(message.data) as { type: string; event?: SessionEvent };
      if (frame.type === 'ready') {
        this.#caughtUp = true;
        this.#retry = 0;
        this.#onState(true);
      }
      if (frame.type === 'event' && frame.event && frame.event.seq > this.#lastSeq) {
        this.#lastSeq = frame.event.seq;
        this.#onEvent(frame.event, !this.#caughtUp);
      }
    };
    socket.onclose = () => {
      this.#onState(false);
      if (this.#closed) return;
      const delay = Math.min(500 * 2 ** this.#retry, 10_000);
      this.#retry += 1;
      this.#timer = setTimeout(() => this.#connect(), delay);
    };
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.close();
  }
}
