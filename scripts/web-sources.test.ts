import { describe, expect, it } from 'vitest';
import { webBundleSourcesOutside } from './web-sources.ts';

describe('the web bundle sources outside src/web', () => {
  it('include every core file the UI imports as a value (not only types), and what those import', () => {
    const sources = webBundleSourcesOutside();
    expect(sources).toContain('src/core/runtime/chat-decisions.ts');
    expect(sources).toContain('src/core/text/suggestions.ts');
    expect(sources.every((file) => file.startsWith('src/core/'))).toBe(true);
  });
});
