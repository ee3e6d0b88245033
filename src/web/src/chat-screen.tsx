import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Decision, type Me, type SessionSnapshot } from './api.ts';
import { SessionSocket } from './event-socket.ts';
import { FeedbackControl } from './feedback-control.tsx';
import { ApprovalPanel, ContinuePanel, QuestionPanel } from './interrupt-panels.tsx';
import { MessageList } from './message-list.tsx';
import { PhaseStepper } from './phase-stepper.tsx';
import { TerminalPanel } from './terminal-panel.tsx';

const REFRESH_ON = new Set(['message', 'tool.call', 'tool.result', 'interrupt', 'decision', 'phase', 'status']);

/** Reads the text of a `text.delta` event, whatever the field is called. */
function deltaText(data: unknown): string {
  if (typeof data === 'string') return data;
  const record = (data ?? {}) as Record<string, unknown>;
  const value = record.text ?? record.delta ?? record.textDelta;
  return typeof value === 'string' ? value : '';
}

function terminalBytes(data: unknown): string {
  if (typeof data === 'string') return data;
  const record = (data ?? {}) as Record<string, unknown>;
  const value = record.data ?? record.text ?? record.output ?? record.chunk;
  return typeof value === 'string' ? value : '';
}

export function ChatScreen({ sessionId, me }: { sessionId: string; me: Me }) {
  const [session, setSession] = useState<SessionSnapshot | undefined>();
  const [error, setError] = useState('');
  const [streaming, setStreaming] = useState('');
  const [busy, setBusy] = useState(false);
  const [connected, setConnected] = useState(false);
  const [terminal, setTerminal] = useState<string[]>([]);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = useCallback(async () => {
    try {
      setSession(await api.session(sessionId));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  }, [sessionId]);

  useEffect(() => {
    void refresh();
    const socket = new SessionSocket(
      sessionId,
      0,
      (event) => {
        if (event.type === 'text.delta') setStreaming((text) => text + deltaText(event.data));
        if (event.type === 'terminal.output') setTerminal((chunks) => [...chunks, terminalBytes(event.data)]);
        if (event.type === 'message') setStreaming('');
        if (REFRESH_ON.has(event.type)) {
          clearTimeout(refreshTimer.current);
          refreshTimer.current = setTimeout(() => void refresh(), 60);
        }
      },
      setConnected,
    );
    return () => {
      socket.close();
      clearTimeout(refreshTimer.current);
    };
  }, [sessionId, refresh]);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
      setStreaming('');
      await refresh();
    }
  };
  const decide = (decision: Decision) => act(() => api.decide(sessionId, decision));
  const send = (text: string) => act(() => api.send(sessionId, text));

  if (!session) {
    return error ? (
      <p class="error" role="alert" data-testid="session-error">
        {error}
      </p>
    ) : (
      <p class="muted">Loading session…</p>
    );
  }
  const interrupt = session.interrupt;
  const showTerminal = terminal.length > 0 || session.agent === 'troubleshoot';
  return (
    <div class="chat">
      <div class="chat-head">
        <h2>
          <span class="agent-tag">{session.agent}</span> {session.title || 'Session'}
        </h2>
        <span class={`status ${session.status}`} data-testid="session-status">
          {session.status}
        </span>
        <span class={connected ? 'live on' : 'live'} title={connected ? 'Live updates connected' : 'Reconnecting…'}>
          {connected ? '● live' : '○ offline'}
        </span>
        <a href={`#/audit?session=${session.id}`}>Audit of this session</a>
      </div>
      {session.route === 'workflow' && session.phases && (
        <PhaseStepper phases={session.phases} current={session.phase} history={session.phaseHistory} />
      )}
      <MessageList session={session} streaming={streaming} onSuggestion={(text) => send(text)} busy={busy} />
      {showTerminal && <TerminalPanel chunks={terminal} />}
      {interrupt?.type === 'approval' && <ApprovalPanel interrupt={interrupt} me={me} busy={busy} onDecide={decide} />}
      {interrupt?.type === 'question' && <QuestionPanel interrupt={interrupt} busy={busy} onDecide={decide} />}
      {interrupt?.type === 'continue' && <ContinuePanel interrupt={interrupt} busy={busy} onDecide={decide} />}
      {error && (
        <p class="error" role="alert" data-testid="chat-error">
          {error}
        </p>
      )}
      {session.username === me.username ? (
        <Composer disabled={busy || !!interrupt} waiting={!!interrupt} onSend={send} />
      ) : (
        <p class="muted" data-testid="observer-note">
          This is {session.username}'s session: you can decide its pending requests and read its history; only {session.username} sends
          messages here.
        </p>
      )}
      <FeedbackControl sessionId={session.id} label="How was this session?" />
    </div>
  );
}

function Composer({ disabled, waiting, onSend }: { disabled: boolean; waiting: boolean; onSend: (text: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (!text.trim()) return;
        onSend(text.trim());
        setText('');
      }}
    >
      <label class="sr-only" for="message">
        Message
      </label>
      <textarea
        id="message"
        rows={2}
        value={text}
        placeholder={waiting ? 'Decide the pending request above first.' : 'Ask the agent… (Enter to send, Shift+Enter for a new line)'}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <button type="submit" class="primary" disabled={disabled || !text.trim()}>
        Send
      </button>
    </form>
  );
}
