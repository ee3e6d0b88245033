import type { Logger } from 'pino';
import { ToolAccessDeniedError, ToolMutabilityWarning, ToolNotFoundError } from '../errors/index.ts';
import type { AnyToolDefinition, Scope } from './define-tool.ts';

export interface RegisterOptions {
  /** Replace a read-only tool by a mutable one on purpose. Default false. */
  readonly forceOverride?: boolean;
}

/** Receives the warnings the registry raises, so they reach the audit log. */
export type RegistryWarningSink = (warning: ToolMutabilityWarning) => void;

function admits(scope: Scope, value: string): boolean {
  return scope === '*' || scope.includes(value);
}

/**
 * The tools an agent may use, scoped by role and phase. Read-only is the preferred default:
 * a mutable tool does not silently replace a read-only one.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyToolDefinition>();
  readonly #logger: Logger | undefined;
  readonly #onWarning: RegistryWarningSink | undefined;

  constructor(options: { logger?: Logger; onWarning?: RegistryWarningSink } = {}) {
    this.#logger = options.logger;
    this.#onWarning = options.onWarning;
  }

  /**
   * Adds a tool. Registering a mutable tool over a read-only one of the same name keeps the
   * read-only one and raises a `ToolMutabilityWarning`, unless `forceOverride` is set.
   * Returns false when the registration was refused that way.
   */
  register(definition: AnyToolDefinition, options: RegisterOptions = {}): boolean {
    const existing = this.#tools.get(definition.name);
    if (existing && existing.mutability === 'read-only' && definition.mutability === 'mutable' && !options.forceOverride) {
      const warning = new ToolMutabilityWarning(definition.name);
      this.#logger?.warn({ code: warning.code, tool: definition.name }, warning.message);
      this.#onWarning?.(warning);
      return false;
    }
    this.#tools.set(definition.name, definition);
    return true;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tool by name, whatever the role and phase (for questions about a recorded call). */
  find(name: string): AnyToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** The tool for that role and phase; failing either the role or the phase denies. */
  resolve(name: string, role: string, phase: string): AnyToolDefinition {
    const tool = this.#tools.get(name);
    if (!tool) throw new ToolNotFoundError(name);
    if (!admits(tool.allowedRoles, role)) throw new ToolAccessDeniedError(name, role, phase, 'role');
    if (!admits(tool.allowedPhases, phase)) throw new ToolAccessDeniedError(name, role, phase, 'phase');
    return tool;
  }

  /** Every tool the role may use in the phase: the only tools a model is offered. */
  list(role: string, phase: string): AnyToolDefinition[] {
    return [...this.#tools.values()].filter((tool) => admits(tool.allowedRoles, role) && admits(tool.allowedPhases, phase));
  }

  all(): AnyToolDefinition[] {
    return [...this.#tools.values()];
  }
}
