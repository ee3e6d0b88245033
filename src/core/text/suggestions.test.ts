import { describe, expect, it } from 'vitest';
import { parseSuggestions } from './suggestions.ts';

describe('parseSuggestions', () => {
  it('AR-21 parses a [SUGGESTIONS] block into chips and removes it from the text', () => {
    const parsed = parseSuggestions('nginx is down.\n\n[SUGGESTIONS]\n- Check logs\n- Restart nginx\n[/SUGGESTIONS]\n');
    expect(parsed.suggestions).toEqual(['Check logs', 'Restart nginx']);
    expect(parsed.text).toBe('nginx is down.');
  });

  it('AR-21 keeps at most four distinct short items', () => {
    const items = ['Check logs', '* Restart', '1. Check disk', '- check logs', '• Open runbook', '- Escalate'];
    const parsed = parseSuggestions(`Done.\n[SUGGESTIONS]\n${items.map((i) => (/^[-*•\d]/.test(i) ? i : `- ${i}`)).join('\n')}`);
    expect(parsed.suggestions).toEqual(['Check logs', 'Restart', 'Check disk', 'Open runbook']);
    expect(parsed.text).toBe('Done.');
  });

  it('AR-21 ends an unclosed block at the first line that is not an item', () => {
    const parsed = parseSuggestions('A\n[SUGGESTIONS]\n- "Check logs"\n- Restart\nThanks!');
    expect(parsed.suggestions).toEqual(['Check logs', 'Restart']);
    expect(parsed.text).toBe('A\nThanks!');
  });

  it('AR-21 accepts items on the marker line and shortens long ones', () => {
    const parsed = parseSuggestions(`x\n[SUGGESTIONS] Check logs | ${'very long '.repeat(10)}`);
    expect(parsed.suggestions[0]).toBe('Check logs');
    expect(parsed.suggestions[1]!.length).toBeLessThanOrEqual(60);
    expect(parsed.suggestions[1]!.endsWith('…')).toBe(true);
    expect(parsed.text).toBe('x');
  });

  it('AR-21 returns no chips when there is no block', () => {
    expect(parseSuggestions('Just text')).toEqual({ text: 'Just text', suggestions: [] });
  });
});
