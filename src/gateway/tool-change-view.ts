import { createTwoFilesPatch } from 'diff';
import type { ChangedTool } from './tool-definitions.ts';
import { injectionMarkers } from './untrusted-text.ts';

/** A changed tool definition as an admin reviews it: what changed, line by line, and what to beware of. */
export interface ToolChangeView {
  readonly upstream: string;
  readonly tool: string;
  readonly changedAt: string;
  readonly acceptedHash: string;
  /** The definition under review: accepting names it, so a later change is not accepted unseen. */
  readonly changedHash: string;
  /** Unified diff of the accepted definition against the changed one (description, schemas, annotations). */
  readonly diff: string;
  /** Prompt-injection markers in the changed description or title, in words an admin reads. */
  readonly markers: readonly string[];
}

// JSON escapes C0 controls itself; these would still reorder or hide text on an admin's screen.
const INVISIBLE = /[\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** The definition as text in which every escape and invisible character shows as `\uXXXX`. */
function visible(definition: unknown): string {
  return `${JSON.stringify(definition, null, 2).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

function textOf(definition: unknown, key: 'description' | 'title'): string {
  const value = (definition as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : '';
}

export function toolChangeView(change: ChangedTool): ToolChangeView {
  return {
    upstream: change.upstream,
    tool: change.tool,
    changedAt: change.changedAt,
    acceptedHash: change.acceptedHash,
    changedHash: change.changedHash,
    diff: createTwoFilesPatch(
      `${change.upstream}/${change.tool} (accepted)`,
      `${change.upstream}/${change.tool} (changed)`,
      visible(change.accepted),
      visible(change.changed),
      undefined,
      undefined,
      { context: 10_000 },
    ),
    markers: injectionMarkers(`${textOf(change.changed, 'title')}\n${textOf(change.changed, 'description')}`),
  };
}
