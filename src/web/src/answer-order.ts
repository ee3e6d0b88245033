/**
 * Overlapping reads of the same thing can answer out of order: a read asked before a change may
 * answer after one asked after it (a busy server, a slow connection). Shown blindly, the older
 * answer replaces the newer one, and what it lacks vanishes from the screen: an approval panel
 * that had just appeared closed under the person's hands (issue 31). Each read takes a number
 * when it is asked; its answer is shown only when no later-asked read's answer was shown before it.
 */
export class AnswerOrder {
  #asked = 0;
  #shown = 0;

  /** Numbers a read as it is asked. */
  ask(): number {
    this.#asked += 1;
    return this.#asked;
  }

  /** True when the answer of read `ticket` may be shown (and from now on is the newest shown). */
  mayShow(ticket: number): boolean {
    if (ticket <= this.#shown) return false;
    this.#shown = ticket;
    return true;
  }
}
