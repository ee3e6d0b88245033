import { useEffect, useRef } from 'preact/hooks';
import { extractRunbookLinks, RUNBOOK_LINK_PATTERN, RUNBOOK_LINKS_HEADING } from '../../core/text/runbook-links.ts';
import { parseSuggestions } from '../../core/text/suggestions.ts';
import type { SessionSnapshot } from './api.ts';
import { argumentChanges } from './argument-changes.ts';
import { asQueryResult, DataTable } from './data-table.tsx';
import { FeedbackControl } from './feedback-control.tsx';
import { RichText, safeHref } from './rich-text.tsx';

type ToolCall = SessionSnapshot['toolCalls'][number];

/** A step named in words ("commit transaction"), not by the tool's identifier (issue 31: no developer words on a first read). */
function stepName(tool: string): string {
  return tool.replace(/_/g, ' ');
}

/** An answer: text (without the suggestions block and the runbook section), runbook links (AR-20). */
function AnswerText({ text }: { text: string }) {
  const headingAt = text.indexOf(RUNBOOK_LINKS_HEADING);
  const body = (headingAt >= 0 ? text.slice(0, headingAt) : text).replace(RUNBOOK_LINK_PATTERN, '').trimEnd();
  const links = [...new Set(extractRunbookLinks(text))];
  return (
    <>
      <RichText text={body} />
      {links.length > 0 && (
        <div class="runbooks" data-testid="runbook-links">
          {/* Without the book emoji: fonts without it showed a box. */}
          <strong>{RUNBOOK_LINKS_HEADING.replace(/^[^\p{L}]+/u, '')}</strong>
          <ul>
            {links.map((link) => {
              const href = safeHref(link);
              return (
                <li key={link}>
                  {href ? (
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {link}
                    </a>
                  ) : (
                    link
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </>
  );
}

/** The runtime's error for an approval whose preview changed before it ran (`APPROVAL_BINDING_MISMATCH`). */
const BINDING_MISMATCH = 'approval binding mismatch';

/** Call errors in words a person can act on. */
function explainError(error: string): string {
  if (error === BINDING_MISMATCH)
    return 'Not run: what this approval was bound to changed before it could run (for example the server restarted and the open transaction is gone). Nothing was changed; ask the agent to plan it again.';
  return error;
}

function ToolResult({ result }: { result: unknown }) {
  const table = asQueryResult(result);
  return (
    <>
      {table && <DataTable columns={table.columns} rows={table.rows} testId="result-table" />}
      <details class="result raw" open={!table && typeof result === 'string'}>
        <summary>{table ? 'Result (JSON)' : 'Result'}</summary>
        <pre>{typeof result === 'string' ? result : JSON.stringify(result, null, 2)}</pre>
      </details>
    </>
  );
}

/** A turn's tool calls as one collapsible list of steps; open while one of them needs a person. */
function Steps({ calls, sessionId, allCalls }: { calls: readonly ToolCall[]; sessionId: string; allCalls: ReadonlyMap<string, ToolCall> }) {
  const open = calls.some(
    (c) => c.mutability === 'mutable' || c.status === 'failed' || c.status === 'proposed' || asQueryResult(c.result) !== undefined,
  );
  return (
    <details class="steps" open={open} data-testid="steps">
      <summary>
        {calls.length} step{calls.length === 1 ? '' : 's'}: {calls.map((c) => stepName(c.tool)).join(', ')}
      </summary>
      {calls.map((call) => (
        <ToolCard key={call.id} call={call} sessionId={sessionId} allCalls={allCalls} />
      ))}
    </details>
  );
}

/**
 * "alice changed replicaCount 6 → 4 and re-planned": an approver's edit as what it was, never as
 * "blocked by the validator" (a changed Helm call carries a stale plan hash, so the agent plans again).
 */
function modificationText(call: ToolCall, allCalls: ReadonlyMap<string, ToolCall>): string | undefined {
  const modification = call.modification;
  if (!modification) return undefined;
  const replacement = modification.replacedBy ? allCalls.get(modification.replacedBy) : undefined;
  const after = modification.args ?? replacement?.args;
  const changes = after ? argumentChanges(call.args, after) : [];
  const what = changes.length > 0 ? changes.join(', ') : 'the request';
  return replacement
    ? `${modification.by} changed ${what}; the changed request replaces this one`
    : `${modification.by} changed ${what} and re-planned`;
}

function statusText(call: ToolCall): string {
  if (call.modification) return `changed by ${call.modification.by}`;
  if (call.withdrawnBy) return 'withdrawn';
  return call.status === 'blocked' ? 'blocked by the validator' : call.status;
}

function ToolCard({ call, sessionId, allCalls }: { call: ToolCall; sessionId: string; allCalls: ReadonlyMap<string, ToolCall> }) {
  const readOnly = call.mutability === 'read-only';
  const modified = modificationText(call, allCalls);
  return (
    <details
      class={`tool-card ${call.mutability} ${call.status}`}
      open={!readOnly || asQueryResult(call.result) !== undefined}
      data-testid="tool-card"
      data-tool={call.tool}
      data-status={call.status}
    >
      <summary>
        <span class="tool-name">{stepName(call.tool)}</span>
        {/* A blocked call never had a risk that matters: it could not run at all. */}
        {call.status !== 'blocked' && <span class={`risk ${call.risk}`}>{readOnly ? 'read-only' : `${call.risk} risk`}</span>}
        <span class={`call-status ${call.modification ? 'modified' : call.status}`}>{statusText(call)}</span>
        {/* Which rule approved it is in the step's details: rule ids are not for a first read. */}
        {call.approvalRule ? (
          <span class="muted">approved by a rule</span>
        ) : (
          call.approvedBy && <span class="muted">approved by {call.approvedBy.replace(/^user:/, '')}</span>
        )}
      </summary>
      {modified && (
        <p class="modification" data-testid="modification">
          {modified}
        </p>
      )}
      {call.withdrawnBy && (
        <p class="rejection" data-testid="withdrawal">
          Withdrawn by <strong>{call.withdrawnBy}</strong>
        </p>
      )}
      {call.rejection && !modified && !call.withdrawnBy && (
        <p class="rejection" data-testid="rejection">
          Rejected by <strong>{call.rejection.by}</strong>: {call.rejection.reason}
        </p>
      )}
      {typeof call.args.sql === 'string' ? <pre class="command">{call.args.sql}</pre> : null}
      {typeof call.args.command === 'string' ? <pre class="command">$ {call.args.command}</pre> : null}
      {call.error && <p class="error">{explainError(call.error)}</p>}
      {call.result !== undefined && call.result !== null && <ToolResult result={call.result} />}
      <details class="raw">
        <summary>Details</summary>
        {call.approvalRule && (
          <p data-testid="approval-rule">
            Approved by the rule <code>{call.approvalRule}</code>
          </p>
        )}
        <pre class="args">{JSON.stringify(call.args, null, 2)}</pre>
      </details>
      <FeedbackControl sessionId={sessionId} target={call.id} label="Was this step right?" compact />
    </details>
  );
}

export function MessageList({
  session,
  streaming,
  busy,
  onSuggestion,
}: {
  session: SessionSnapshot;
  streaming: string;
  busy: boolean;
  onSuggestion: (text: string) => void;
}) {
  const end = useRef<HTMLDivElement>(null);
  const calls = new Map(session.toolCalls.map((call) => [call.id, call]));
  const lastAssistant = [...session.messages].reverse().find((m) => m.role === 'assistant' && m.text.trim() !== '');
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [session.messages.length, streaming]);
  return (
    <div class="messages" aria-live="polite" data-testid="messages">
      {session.messages.map((message) => {
        if (message.role === 'tool' || message.role === 'system') return null;
        const parsed = message.role === 'assistant' ? parseSuggestions(message.text) : { text: message.text, suggestions: [] };
        const cards = (message.toolCalls ?? []).map((c) => calls.get(c.callId)).filter((c): c is ToolCall => c !== undefined);
        return (
          <div key={message.seq} class={`message ${message.role}`} data-testid={`message-${message.role}`}>
            {parsed.text.trim() !== '' &&
              (message.role === 'assistant' ? <AnswerText text={parsed.text} /> : <div class="text">{parsed.text}</div>)}
            {cards.length > 0 && <Steps calls={cards} sessionId={session.id} allCalls={calls} />}
            {message === lastAssistant && parsed.suggestions.length > 0 && (
              <div class="chips" data-testid="suggestions">
                {parsed.suggestions.map((s) => (
                  <button type="button" class="chip" key={s} disabled={busy || !!session.interrupt} onClick={() => onSuggestion(s)}>
                    {s}
                  </button>
                ))}
              </div>
            )}
            {message.role === 'assistant' && parsed.text.trim() !== '' && (
              <FeedbackControl sessionId={session.id} target={`message:${message.seq}`} label="Was this answer helpful?" compact />
            )}
          </div>
        );
      })}
      {streaming && (
        <div class="message assistant streaming" data-testid="streaming">
          <div class="text">{streaming}</div>
        </div>
      )}
      {busy && !streaming && <p class="muted typing">The agent is working…</p>}
      <div ref={end} />
    </div>
  );
}
