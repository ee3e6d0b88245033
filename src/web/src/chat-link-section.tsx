import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText, request } from './api.ts';

interface MySlackLink {
  readonly slackEnabled: boolean;
  readonly linked: {
    readonly slackUserId: string;
    readonly email: string;
    readonly linkedAt: string;
    readonly linkedBy: string;
    readonly yours: boolean;
  } | null;
  readonly pending: { readonly slackUserId: string; readonly expiresAt: string } | null;
}

const linkApi = {
  get: () => request<MySlackLink>('GET', '/api/me/chat/slack/link'),
  ask: (slackUserId: string) => request<{ sentTo: string; expiresAt: string }>('POST', '/api/me/chat/slack/link', { slackUserId }),
  confirm: (code: string) => request<{ linked: string }>('POST', '/api/me/chat/slack/link/confirm', { code }),
  unlink: () => request<{ unlinked: boolean }>('DELETE', '/api/me/chat/slack/link'),
};

function linkedText(linked: NonNullable<MySlackLink['linked']>): string {
  const account = linked.slackUserId || linked.email;
  if (linked.yours) return `Your opsgate account is linked to the Slack member ${account}. You confirmed it with a code sent there.`;
  const by = linked.linkedBy ? `${linked.linkedBy} linked` : 'Someone linked';
  return `${by} your opsgate account to the Slack member ${account}. It is not yours: it can reject requests in Slack, but approving other people's requests through it is refused until you link your account yourself below.`;
}

/**
 * Everyone: link your own Slack account (review H2-new). You name your member id, opsgate's bot
 * sends a one-time code to it in Slack, you enter it here while signed in: only the person who can
 * read that Slack account's messages and is signed in to opsgate can link the two.
 */
export function ChatLinkSection() {
  const [state, setState] = useState<MySlackLink | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const [memberId, setMemberId] = useState('');
  const [code, setCode] = useState('');
  const reload = useCallback(async () => setState(await linkApi.get()), []);
  useEffect(() => {
    reload().catch((error: unknown) => setMessage({ ok: false, text: errorText(error) }));
  }, [reload]);
  const run = async (work: () => Promise<string>) => {
    try {
      setMessage({ ok: true, text: await work() });
      await reload();
    } catch (error) {
      setMessage({ ok: false, text: errorText(error) });
    }
  };
  if (!state) return null;
  return (
    <section class="card" aria-labelledby="slack-link-title" data-testid="my-slack-link">
      <h2 id="slack-link-title">Your Slack account</h2>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="slack-link-message">
          {message.text}
        </p>
      )}
      {!state.slackEnabled && (
        <p class="muted">Slack approvals are not set up here. An admin connects Slack under Admin → Chat approvals.</p>
      )}
      <p data-testid="slack-link-state">{state.linked ? linkedText(state.linked) : 'No Slack account is linked to you.'}</p>
      {state.slackEnabled && (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              const sent = await linkApi.ask(memberId.trim());
              setCode('');
              return `A code is on its way to ${sent.sentTo} in Slack (from the opsgate app). Enter it below within 10 minutes.`;
            });
          }}
        >
          <label>
            Slack member id
            <input
              value={memberId}
              onInput={(event) => setMemberId(event.currentTarget.value)}
              placeholder="U0123ABCD"
              required
              data-testid="slack-member-id"
            />
          </label>
          <button type="submit" data-testid="slack-send-code">
            Send me a code in Slack
          </button>
          <small class="muted">In Slack: your profile → ⋮ → Copy member ID.</small>
        </form>
      )}
      {state.pending && (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => `Linked: Slack member ${(await linkApi.confirm(code.trim())).linked} is you in opsgate now.`);
          }}
        >
          <label>
            Code sent to {state.pending.slackUserId}
            <input
              value={code}
              onInput={(event) => setCode(event.currentTarget.value)}
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              data-testid="slack-link-code"
            />
          </label>
          <button type="submit" data-testid="slack-confirm-code">
            Link
          </button>
        </form>
      )}
      {state.linked && (
        <button
          type="button"
          class="link"
          data-testid="slack-unlink"
          onClick={() =>
            void run(async () =>
              (await linkApi.unlink()).unlinked ? 'Unlinked. Slack buttons no longer decide as you.' : 'Nothing was linked.',
            )
          }
        >
          Unlink my Slack account
        </button>
      )}
    </section>
  );
}
