import { describe, expect, it } from 'vitest';
import { AnswerOrder } from './answer-order.ts';

describe('answers shown in the order their reads were asked (issue 31: the panel race)', () => {
  it('drops an answer that arrives after the answer of a read asked later', () => {
    const order = new AnswerOrder();
    const beforeTheChange = order.ask();
    const afterTheChange = order.ask();
    expect(order.mayShow(afterTheChange)).toBe(true);
    expect(order.mayShow(beforeTheChange)).toBe(false);
  });

  it('shows answers that arrive in order, and an older one that arrives before any newer', () => {
    const order = new AnswerOrder();
    const first = order.ask();
    const second = order.ask();
    const third = order.ask();
    expect(order.mayShow(first)).toBe(true);
    expect(order.mayShow(third)).toBe(true);
    expect(order.mayShow(second)).toBe(false);
    expect(order.mayShow(order.ask())).toBe(true);
  });

  it('shows an answer once', () => {
    const order = new AnswerOrder();
    const only = order.ask();
    expect(order.mayShow(only)).toBe(true);
    expect(order.mayShow(only)).toBe(false);
  });
});
