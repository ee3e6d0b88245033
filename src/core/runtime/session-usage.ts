/** What one session's model steps used, per turn and in all. Cost is null when a price is unknown. */
export interface SessionUsage {
  readonly turns: ReadonlyArray<{
    readonly turn: number;
    readonly steps: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly costUsd: number | null;
  }>;
  readonly total: { readonly steps: number; readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number | null };
  /** `provider:model` of the steps, e.g. `anthropic.messages:claude-sonnet-4-5`. */
  readonly models: readonly string[];
}
