import { useEffect, useState } from 'preact/hooks';
import { inboxApi } from './inbox-api.ts';

/** How often the badge asks what waits. 10 s. */
const POLL_MS = 10_000;

/** The nav link to the inbox, with a badge counting the calls the policy lets me approve. */
export function InboxLink({ current }: { current: boolean }) {
  const [count, setCount] = useState(0);
  useEffect(() => {
    let stopped = false;
    const load = () =>
      inboxApi.pending().then(
        (answer) => !stopped && setCount(answer.waitingForMe),
        () => {},
      );
    void load();
    const timer = setInterval(load, POLL_MS);
    addEventListener('opsgate:inbox-changed', load);
    return () => {
      stopped = true;
      clearInterval(timer);
      removeEventListener('opsgate:inbox-changed', load);
    };
  }, []);
  return (
    <a href="#/inbox" aria-current={current ? 'page' : undefined}>
      Approvals{' '}
      {count > 0 && (
        <span class="badge" data-testid="inbox-badge" title={`${count} waiting for you`}>
          {count}
        </span>
      )}
    </a>
  );
}
