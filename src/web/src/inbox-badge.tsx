import { useInbox } from './inbox-store.ts';

/** The nav link to the inbox, with a badge counting the calls the policy lets me approve (the same answer the list shows). */
export function InboxLink({ current }: { current: boolean }) {
  const { waitingForMe: count } = useInbox();
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
