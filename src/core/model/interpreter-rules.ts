/** What the offline interpreter knows when it decides the next step of a turn. */
export interface InterpreterTurn {
  /** The latest message of the person, as typed. */
  readonly userText: string;
  /** Tool calls made since that message, in order, with what they returned. */
  readonly steps: ReadonlyArray<{
    readonly toolName: string;
    readonly input: unknown;
    readonly output: unknown;
    readonly isError: boolean;
  }>;
  /** Earlier text exchanges of the session, oldest first. */
  readonly history: ReadonlyArray<{ readonly role: 'user' | 'assistant'; readonly text: string }>;
  /** The tools offered to the model in this step. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** The system prompt (agents may put session facts there, e.g. the phase). */
  readonly system: string;
}

export type InterpreterAction =
  | { readonly text: string }
  | { readonly toolCalls: ReadonlyArray<{ readonly toolName: string; readonly input: Record<string, unknown> }>; readonly text?: string };

/**
 * An agent's intent rules for the offline interpreter. `next` is called once per model step; it
 * returns the same tool calls or answer a model would, or undefined when it does not understand.
 */
export interface InterpreterRules {
  /** Lines of the agent's command language, shown by `/help`. */
  readonly help: readonly string[];
  next(turn: InterpreterTurn): InterpreterAction | undefined;
}
