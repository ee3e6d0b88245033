/**
 * Returned by a tool whose work goes on past its soft timeout (AR-12): the runtime records
 * `output` as the result so far and pauses the turn with a "Read Output & Continue" interrupt.
 */
export class ToolContinuation {
  readonly output: unknown;
  readonly message: string;

  constructor(output: unknown, message: string) {
    this.output = output;
    this.message = message;
  }
}
