import type { LanguageModelV4, LanguageModelV4Message } from '@ai-sdk/provider';
import type { AgentDefinition, AgentParts, Route, SessionView, ToolMiddleware } from '../agent/define-agent.ts';
import { AUDIT_JOURNAL_BATCH } from '../audit/index.ts';
import type { Channel, Identity } from '../identity/index.ts';
import { StaleWriteError, type Store, UnitOfWork } from '../store/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import type { StoredMessage } from './messages.ts';
import type { SessionRow, ToolCallRow } from './session-repository.ts';
import { sessionRepository } from './session-repository.ts';
import type { SessionState } from './session-state.ts';
import type { TrackedCall } from './tool-call-lifecycle.ts';
import type { Interrupt, SessionStatus } from './types.ts';

/** An agent as the runtime holds it: set up once, with its registry and model. */
export interface LoadedAgent {
  readonly definition: AgentDefinition;
  readonly parts: AgentParts;
  readonly registry: ToolRegistry;
  readonly model: LanguageModelV4;
  readonly middleware: readonly ToolMiddleware[];
}

/** A session loaded for one turn: the row, its parsed state and history, and what changes. */
export class WorkingSession {
  row: SessionRow;
  readonly state: SessionState;
  readonly messages: StoredMessage[];
  readonly identity: Identity;
  readonly agent: LoadedAgent;
  interrupt: Interrupt | undefined;
  readonly added: StoredMessage[] = [];
  /** The runtime instance that runs this session's turn while it is `running`. */
  runner: string | null = null;
  /** The door this turn came through (the person's message, a client's call, a decision); the policy sees it. */
  channel: Channel = 'rest';
  /** What this turn changed and has not yet stored; committed at checkpoints. */
  readonly uow = new UnitOfWork();
  /** Every tool call of the session, oldest first, as this turn last saw or changed it. */
  readonly calls: TrackedCall[];
  /** The row version the store holds; the next commit writes only if nobody changed it since. */
  #storedVersion: number;
  /** A call row read from the store when this turn loaded the session (in the same read as the version). */
  #loadedCall: ToolCallRow | undefined;
  #dirty = false;
  /** A tool ran since the last commit: its audit must be stored even if the next commit finds the session stale. */
  #ranSinceCommit = false;
  /** A commit of this turn found the session changed elsewhere. */
  #foundStale = false;
  /** The audit of what ran before a commit found the session stale, to store on its own. */
  #strandedAudit: UnitOfWork | undefined;

  constructor(row: SessionRow, state: SessionState, messages: StoredMessage[], agent: LoadedAgent, calls: TrackedCall[] = []) {
    this.row = row;
    this.calls = calls;
    this.state = state;
    this.messages = messages;
    this.agent = agent;
    this.identity = { userId: row.user_id, username: state.username, roles: state.roles };
    this.interrupt = row.interrupt ? (JSON.parse(row.interrupt) as Interrupt) : undefined;
    this.#storedVersion = row.version;
  }

  get id(): string {
    return this.row.id;
  }

  /** Remembers `row` as read from the store just now, for the decision about it. */
  loadedCall(row: ToolCallRow): void {
    this.#loadedCall = row;
  }

  /** The call `callId` as stored when this turn began (once: the turn changes it after), if it was read then. */
  takeLoadedCall(callId: string): ToolCallRow | undefined {
    const row = this.#loadedCall;
    this.#loadedCall = undefined;
    return row?.id === callId ? row : undefined;
  }

  /** Whether a commit of this turn found the session changed elsewhere (and stored nothing of its unit). */
  get foundStale(): boolean {
    return this.#foundStale;
  }

  /** A tool is about to run (something leaves the process): its audit is kept whatever the next commit finds. */
  noteRun(): void {
    this.#ranSinceCommit = true;
  }

  /**
   * The journaled audit of the tools that ran before a commit found the session changed elsewhere
   * (the rest of the unit was dropped), to store on its own; taken once. Undefined when nothing ran.
   */
  takeStrandedAudit(): UnitOfWork | undefined {
    const stranded = this.#strandedAudit;
    this.#strandedAudit = undefined;
    return stranded;
  }

  get route(): Route {
    return this.row.route as Route;
  }

  get phase(): string {
    return this.row.phase;
  }

  view(): SessionView {
    return {
      id: this.row.id,
      agent: this.row.agent,
      identity: this.identity,
      route: this.route,
      phase: this.row.phase,
      options: this.state.options,
    };
  }

  nextMessageSeq(): number {
    const last = this.messages[this.messages.length - 1];
    return (last?.seq ?? 0) + 1;
  }

  /** The next tool-call number of this session (one writer per session: the version check guards it). */
  nextToolCallSeq(): number {
    return (this.calls[this.calls.length - 1]?.row.seq ?? 0) + 1;
  }

  /** Adds messages to the history; they are stored with the next commit. */
  addMessages(messages: readonly LanguageModelV4Message[], createdAt: string): StoredMessage[] {
    const firstSeq = this.nextMessageSeq();
    const stored = messages.map((message, index) => ({ seq: firstSeq + index, message, createdAt }));
    this.messages.push(...stored);
    this.added.push(...stored);
    const sessionId = this.row.id;
    for (const message of stored) this.uow.share('messages', { sessionId, message }, sessionRepository.insertMessages);
    return stored;
  }

  /** Sets status, phase, route, steps, state and interrupt; stored with the next commit. */
  save(status: SessionStatus, updatedAt: string): void {
    this.row = {
      ...this.row,
      status,
      state: JSON.stringify(this.state),
      interrupt: this.interrupt ? JSON.stringify(this.interrupt) : null,
      updated_at: updatedAt,
      runner: status === 'running' ? this.runner : null,
    };
    this.#dirty = true;
  }

  /**
   * Stores everything this turn changed since the last commit in one transaction. The session row
   * is written before the shared rows (messages, events, journal), and only if nobody else wrote it
   * since it was read; otherwise nothing is stored and `StaleWriteError` says so (SESSION_BUSY).
   * Written first, it also holds the row while the turn's messages go in, so two turns on one
   * session never collide on message numbers (which would be retried as a transient conflict,
   * again and again, until 503). Rows of sessions committed together are written by one statement.
   */
  async commit(store: Store, options: { readonly effectFollows?: boolean } = {}): Promise<void> {
    if (this.#dirty) {
      const version = this.#storedVersion;
      const { id, status, phase, route, steps, title, state, interrupt, updated_at, runner } = this.row;
      const patch = { status, phase, route, steps, title, state, interrupt, updated_at, runner };
      this.uow.shareFirst('sessions', { id, version, patch }, async (trx, updates) => {
        const written = await sessionRepository.updateSessions(trx, updates);
        const stale = updates.find((update) => !written.has(update.id));
        if (stale) throw new StaleWriteError('session', stale.id);
      });
      this.uow.afterCommit(() => {
        this.#storedVersion = version + 1;
        this.row = { ...this.row, version: version + 1 };
      });
      this.#dirty = false;
    }
    const audit = this.#ranSinceCommit ? this.uow.sharedPart(AUDIT_JOURNAL_BATCH) : undefined;
    try {
      await this.uow.commit(store, options);
      this.#ranSinceCommit = false;
    } catch (error) {
      this.uow.discard();
      if (error instanceof StaleWriteError) {
        this.#foundStale = true;
        this.#strandedAudit = audit;
      }
      throw error;
    }
  }
}
