import type { LanguageModelV4, LanguageModelV4Message } from '@ai-sdk/provider';
import type { AgentDefinition, AgentParts, Route, SessionView, ToolMiddleware } from '../agent/define-agent.ts';
import type { Identity } from '../identity/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import type { StoredMessage } from './messages.ts';
import type { Db, SessionRow } from './session-repository.ts';
import { sessionRepository } from './session-repository.ts';
import type { SessionState } from './session-state.ts';
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
  #lastToolCallSeq: number | undefined;

  constructor(row: SessionRow, state: SessionState, messages: StoredMessage[], agent: LoadedAgent) {
    this.row = row;
    this.state = state;
    this.messages = messages;
    this.agent = agent;
    this.identity = { userId: row.user_id, username: state.username, roles: state.roles };
    this.interrupt = row.interrupt ? (JSON.parse(row.interrupt) as Interrupt) : undefined;
  }

  get id(): string {
    return this.row.id;
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

  /** The next tool-call number of this session; read once, then counted here (one writer per session). */
  async nextToolCallSeq(db: Db): Promise<number> {
    this.#lastToolCallSeq = (this.#lastToolCallSeq ?? (await sessionRepository.nextToolCallSeq(db, this.row.id)) - 1) + 1;
    return this.#lastToolCallSeq;
  }

  async addMessages(db: Db, messages: readonly LanguageModelV4Message[], createdAt: string): Promise<StoredMessage[]> {
    const stored = await sessionRepository.appendMessages(db, this.row.id, this.nextMessageSeq(), messages, createdAt);
    this.messages.push(...stored);
    this.added.push(...stored);
    return stored;
  }

  /** Writes status, phase, route, steps, state and interrupt, checking nobody else wrote the row meanwhile. */
  async save(db: Db, status: SessionStatus, updatedAt: string): Promise<boolean> {
    const patch = {
      status,
      phase: this.row.phase,
      route: this.row.route,
      steps: this.row.steps,
      title: this.row.title,
      state: JSON.stringify(this.state),
      interrupt: this.interrupt ? JSON.stringify(this.interrupt) : null,
      updated_at: updatedAt,
      runner: status === 'running' ? this.runner : null,
    };
    const ok = await sessionRepository.updateSession(db, this.row.id, this.row.version, patch);
    if (ok) this.row = { ...this.row, ...patch, version: this.row.version + 1 };
    return ok;
  }
}
