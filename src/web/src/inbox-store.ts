import { useEffect, useState } from 'preact/hooks';
import { inboxApi, type PendingApprovalView } from './inbox-api.ts';

/** How often the inbox asks what waits while a badge or the list is on screen. 5 s. */
const INBOX_POLL_MS = 5_000;

export interface InboxState {
  /** Undefined until the first answer. */
  readonly pending?: readonly PendingApprovalView[];
  readonly waitingForMe: number;
  /**
   * Counts answers that came after a failed one or from a server process not seen before: the server
   * was unreachable or restarted (which can void what waits), so whoever shows an approval asks
   * again whether it can still run. A restart between two polls shows only as a new process.
   */
  readonly reconnects: number;
  /** The last poll failed: the server is unreachable (the inbox shows the offline banner). */
  readonly offline: boolean;
}

let state: InboxState = { waitingForMe: 0, reconnects: 0, offline: false };
let failed = false;
const serverInstancesSeen = new Set<string>();
let inFlight: Promise<void> | undefined;
const listeners = new Set<(next: InboxState) => void>();

function publish(next: InboxState): void {
  state = next;
  for (const listener of listeners) listener(state);
}

/**
 * Asks the server what waits, once at a time. The badge and the list read this one answer, so they
 * never disagree; a decision anywhere in the page (`opsgate:inbox-changed`) asks at once.
 */
export function refreshInbox(): Promise<void> {
  inFlight ??= inboxApi
    .pending()
    .then(
      (answer) => {
        const newProcess = serverInstancesSeen.size > 0 && !serverInstancesSeen.has(answer.serverInstance);
        serverInstancesSeen.add(answer.serverInstance);
        const reconnects = failed || newProcess ? state.reconnects + 1 : state.reconnects;
        failed = false;
        publish({ pending: answer.pending, waitingForMe: answer.waitingForMe, reconnects, offline: false });
      },
      () => {
        failed = true;
        if (!state.offline) publish({ ...state, offline: true });
      },
    )
    .finally(() => {
      inFlight = undefined;
    });
  return inFlight;
}

let timer: ReturnType<typeof setInterval> | undefined;
const onChange = () => void refreshInbox();
const onVisible = () => document.visibilityState === 'visible' && void refreshInbox();

/** The live inbox: polled while at least one component shows it, and at once after a decision or when the tab comes back. */
export function useInbox(): InboxState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    if (listeners.size === 1) {
      timer = setInterval(onChange, INBOX_POLL_MS);
      addEventListener('opsgate:inbox-changed', onChange);
      document.addEventListener('visibilitychange', onVisible);
    }
    void refreshInbox();
    return () => {
      listeners.delete(setCurrent);
      if (listeners.size === 0) {
        clearInterval(timer);
        removeEventListener('opsgate:inbox-changed', onChange);
        document.removeEventListener('visibilitychange', onVisible);
      }
    };
  }, []);
  return current;
}

/** Tells every inbox view in the page that a decision was made (they ask again at once). */
export function inboxChanged(): void {
  dispatchEvent(new Event('opsgate:inbox-changed'));
}
