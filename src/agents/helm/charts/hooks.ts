import type { ReleaseHook } from '../backends/types.ts';
import { parseManifest } from './render-chart.ts';

/** A hook with the text Helm stores for it. */
export interface RenderedHook extends ReleaseHook {
  readonly manifest: string;
}

/**
 * Splits a rendered chart the way Helm does before it stores a release: objects annotated
 * `helm.sh/hook` (including `test`) are hooks, kept apart; the rest is the release manifest.
 * Without this, a plan compares hooks against a stored manifest that never holds them, and every
 * upgrade shows them as "create".
 */
export function splitHooks(rendered: string): { manifest: string; hooks: RenderedHook[] } {
  const manifest: string[] = [];
  const hooks: RenderedHook[] = [];
  for (const resource of parseManifest(rendered)) {
    const annotations = ((resource.object.metadata as Record<string, unknown> | undefined)?.annotations ?? {}) as Record<string, unknown>;
    const events = annotations['helm.sh/hook'];
    const text = resource.source ? `---\n# Source: ${resource.source}\n${stripSource(resource.text)}` : `---\n${resource.text}`;
    if (typeof events === 'string' && events.trim()) {
      hooks.push({ key: resource.key, events: events.split(',').map((event) => event.trim()), manifest: text });
    } else {
      manifest.push(text.endsWith('\n') ? text : `${text}\n`);
    }
  }
  return { manifest: manifest.join(''), hooks };
}

function stripSource(text: string): string {
  return text.replace(/^# Source: .*\n/m, '');
}
