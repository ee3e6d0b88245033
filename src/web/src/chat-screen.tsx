import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { decisionFromText } from '../../core/runtime/chat-decisions.ts';
import { AnswerOrder } from './answer-order.ts';
import { type AgentInfo, ApiError, api, type Decision, errorText, type Me, OFFLINE_MESSAGE, type SessionSnapshot } from './api.ts';
import { ApprovalPanel, STALE_APPROVAL_CODES } from './approval-panel.tsx';
import { Composer } from './composer.tsx';
import { SessionSocket } from './event-socket.ts';
import { FeedbackControl } from './feedback-control.tsx';
import { inboxChanged } from './inbox-store.ts';
import { ContinuePanel, QuestionPanel } from './interrupt-panels.tsx';
import { MessageList } from './message-list.tsx';
import { OfflineBanner } from './offline-banner.tsx';
import { PhaseStepper } from './phase-stepper.tsx';
import { TerminalFilter } from './terminal-filter.ts';
import { TerminalPanel } from './terminal-panel.tsx';
import { UsageSummary } from './usage-summary.tsx';

/** What the message box says while the session waits, so typing is never a dead end. */
function composerHint(interrupt: SessionSnapshot['interrupt'], me: Me, agent: string): string | undefined {
  if (interrupt?.type === 'question') return 'Answer above, or type your answer here (yes, no, skip or your own words).';
  if (interrupt?.type === 'continue') return 'Type "continue" to read the output so far, or use the button above.';
  if (interrupt?.type !== 'approval') return undefined;
  if (interrupt.requestedBy === me.username && !interrupt.eligibleApprovers.includes(me.username))
    return `Waiting for ${interrupt.eligibleApprovers.join(' or ') || 'an approver'}. Type a new request to withdraw this one.`;
  if (agent === 'troubleshoot') return 'Type yes to run it, no to skip it, stop to end the runbook, or a new request to withdraw this one.';
  if (interrupt.tool === 'commit_transaction') return 'Type yes or no (commit or rollback), or a new request to withdraw this one.';
  return 'Type yes or no, or a new request to withdraw this one.';
}

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
  const [stale, setStale] = useState<{ callId: string; message: string } | undefined>();
  const [agent, setAgent] = useState<AgentInfo | undefined>();
  const [hostCount, setHostCount] = useState<number | undefined>();
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const snapshots = useRef(new AnswerOrder());

  // Before anyone clicks Approve: ask the server whether the pending approval can still run as
  // shown. Asked again when the live connection comes back, because that is when a restart (which
  // can take an open transaction with it) has happened. A failed check leaves the panel as it is.
  const pendingCallId = session?.interrupt?.type === 'approval' ? session.interrupt.callId : undefined;
  useEffect(() => {
    if (!pendingCallId) return;
    let current = true;
    api.approvalReadiness(sessionId, pendingCallId).then(
      (readiness) => {
        if (!current) return;
        if (readiness.runnable) setStale((known) => (known?.callId === pendingCallId ? undefined : known));
        else setStale({ callId: pendingCallId, message: readiness.message });
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [sessionId, pendingCallId, connected]);

  // Refreshes overlap (live events, the end of an action); an older snapshot answering late must
  // not replace a newer one, or the approval panel vanishes and comes back reset.
  const refresh = useCallback(async () => {
    const ticket = snapshots.current.ask();
    try {
      const snapshot = await api.session(sessionId);
      if (snapshots.current.mayShow(ticket)) setSession(snapshot);
    } catch (e) {
      if (snapshots.current.mayShow(ticket)) setError(errorText(e));
    }
  }, [sessionId]);

  const agentName = session?.agent;
  useEffect(() => {
    if (!agentName) return;
    api.agents().then(
      (list) => setAgent(list.find((a) => a.name === agentName)),
      () => undefined,
    );
    if (agentName === 'troubleshoot')
      api.hosts().then(
        (hosts) => setHostCount(hosts.length),
        () => undefined,
      );
  }, [agentName]);

  useEffect(() => {
    void refresh();
    const terminalFilter = new TerminalFilter();
    const socket = new SessionSocket(
      sessionId,
      0,
      (event, replayed) => {
        // Text streamed by turns already over is in the messages; replaying it would show it twice.
        if (event.type === 'text.delta' && !replayed) setStreaming((text) => text + deltaText(event.data));
        if (event.type === 'terminal.output') {
          const shown = terminalFilter.push(terminalBytes(event.data));
          if (shown) setTerminal((chunks) => [...chunks, shown]);
        }
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

  /** Runs one request; resolves true when the server accepted it. */
  const act = async (work: () => Promise<unknown>, onError?: (error: unknown) => boolean): Promise<boolean> => {
    setBusy(true);
    setError('');
    try {
      await work();
      return true;
    } catch (e) {
      if (!onError?.(e)) setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
      setStreaming('');
      await refresh();
    }
  };
  // When the pending request is gone and nothing new waits, keyboard focus goes to the message box
  // (it fell to the page); a new approval panel takes focus itself.
  const waitingOn = session?.interrupt?.callId;
  const waitedBefore = useRef(false);
  useEffect(() => {
    if (waitedBefore.current && !waitingOn) document.getElementById('message')?.focus();
    waitedBefore.current = waitingOn !== undefined;
  }, [waitingOn]);
  // The "cannot reach the server" line goes once the live connection is back, not at the next action.
  useEffect(() => {
    if (connected) setError((current) => (current === OFFLINE_MESSAGE ? '' : current));
  }, [connected]);
  const decide = (decision: Decision) =>
    act(
      async () => {
        await api.decide(sessionId, decision);
        inboxChanged();
      },
      (e) => {
        if (!(e instanceof ApiError) || !STALE_APPROVAL_CODES.has(e.code)) return false;
        setStale({ callId: decision.callId, message: e.message });
        return true;
      },
    );
  /**
   * A message while an approval waits: a decision word ("yes", "no", "rollback", …) decides it (the
   * server says who may, if you may not); anything else is a new request, so your pending one is
   * withdrawn first and the agent reads why. Nothing typed is ever silently dropped.
   */
  const send = (text: string) =>
    act(async () => {
      const waiting = session?.interrupt;
      if (waiting?.type === 'approval' && session?.username === me.username && !decisionFromText(session, text)) {
        await api.decide(sessionId, { type: 'withdraw', callId: waiting.callId });
        inboxChanged();
      }
      await api.send(sessionId, text);
    });

  if (!session) {
    return error ? (
      <div class="stack">
        <p class="error" role="alert" data-testid="session-error">
          {error}
        </p>
        <a href="#/" data-testid="back-to-sessions">
          Back to your sessions
        </a>
      </div>
    ) : (
      <p class="muted">Loading session…</p>
    );
  }
  const interrupt = session.interrupt;
  const noHosts = session.agent === 'troubleshoot' && hostCount === 0 && terminal.length === 0;
  const showTerminal = terminal.length > 0 || (session.agent === 'troubleshoot' && !noHosts);
  return (
    <div class="chat">
      <OfflineBanner connected={connected} />
      <div class="chat-head">
        <h2>
          <span class="agent-tag">{session.agent}</span> {session.title || 'Session'}
        </h2>
        <span class={`status ${session.status}`} data-testid="session-status">
          {session.status}
        </span>
        <span class={connected ? 'live on' : 'live'} title={connected ? 'Live updates connected' : 'Reconnecting…'}>
          {connected ? '● live' : '○ reconnecting'}
        </span>
        <a href={`#/audit?session=${session.id}`}>Audit of this session</a>
      </div>
      <UsageSummary sessionId={session.id} refreshKey={session.messages.length} />
      {agent?.notice && (
        <p class="notice" role="note" data-testid="session-notice">
          {agent.notice}
        </p>
      )}
      {noHosts && (
        <p class="notice" role="note" data-testid="no-hosts">
          No SSH hosts are registered yet, so there is nothing to troubleshoot. <a href="#/admin/hosts">Add a host</a> (admins) or ask your
          opsgate admin to add one.
        </p>
      )}
      {session.route === 'workflow' && session.phases && (
        <div class="sticky-top">
          <PhaseStepper phases={session.phases} current={session.phase} history={session.phaseHistory} />
        </div>
      )}
      <MessageList session={session} streaming={streaming} onSuggestion={(text) => send(text)} busy={busy} />
      {showTerminal && <TerminalPanel chunks={terminal} />}
      {interrupt?.type === 'approval' && (
        <ApprovalPanel
          key={interrupt.callId}
          interrupt={interrupt}
          me={me}
          busy={busy}
          {...(stale?.callId === interrupt.callId ? { stale: stale.message } : {})}
          stoppable={session.agent === 'troubleshoot'}
          onDecide={decide}
        />
      )}
      {interrupt?.type === 'question' && <QuestionPanel interrupt={interrupt} busy={busy} onDecide={decide} />}
      {interrupt?.type === 'continue' && <ContinuePanel interrupt={interrupt} busy={busy} onDecide={decide} />}
      {error && (
        <p class="error" role="alert" data-testid="chat-error">
          {error}
        </p>
      )}
      {session.username === me.username ? (
        <Composer sessionId={session.id} disabled={busy} placeholder={composerHint(interrupt, me, session.agent)} onSend={send} />
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
