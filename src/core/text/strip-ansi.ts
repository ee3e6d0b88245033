/**
 * Removes terminal escape sequences (AR-09) in one pass over char codes, keeping every byte of text
 * (including `\r`, `\n`, `\t` and other C0 controls) exactly as it was. Handles CSI (`ESC [` and C1
 * `0x9b`), OSC (`ESC ]` / `0x9d`, ended by BEL or ST, so OSC 8 hyperlinks keep their visible text),
 * DCS/SOS/PM/APC strings (C1 `0x90 0x98 0x9e 0x9f` too, ended by ST), two-character and intermediate
 * escapes (`ESC 7`, `ESC ( B`) and stray STs. Other C1 controls (NEL, …) are kept like `\r` is, as
 * strip-ansi does. The same state machine serves the streaming form, so an escape sequence split
 * across chunks is removed whole.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
const OSC = 4;
const CONTROL_STRING = 5;
/** Saw ESC inside an OSC or control string: `\` ends it, anything else starts a new escape. */
const STRING_ESCAPE = 6;

type State = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** Finds the next ESC or C1 introducer/ST; irregexp compiles this to a tight native scan. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SPECIAL = /[\u001b\u0090\u0098\u009b-\u009f]/g;

/** A stripper that keeps its state between chunks. */
export interface AnsiStripper {
  /** Returns the text of `chunk` with escape sequences removed (sequences may span chunks). */
  push(chunk: string): string;
  /** Ends the stream; an unfinished sequence at the end is dropped. Returns '' (for symmetry). */
  flush(): string;
}

/** Creates a streaming stripper for chunked terminal output. */
export function createAnsiStripper(): AnsiStripper {
  let state: State = GROUND;
  return {
    push(chunk: string): string {
      const [text, next] = stripChunk(chunk, state);
      state = next;
      return text;
    },
    flush(): string {
      state = GROUND;
      return '';
    },
  };
}

/**
 * Every sequence the state machine below removes, as one regex with the same semantics (unfinished
 * sequences are dropped up to where they broke off). `String.replace` with it runs in native code;
 * a test checks it against the state machine on random input.
 */
const SEQUENCE = new RegExp(
  [
    String.raw`(?:\u001b\[|\u009b)[\u0020-\u003f]*[\u0040-\u007e]?`,
    String.raw`(?:\u001b\]|\u009d)[^\u0007\u001b\u0018\u001a\u0080-\u009f]*(?:\u0007|\u001b\\|[\u009c\u0018\u001a])?`,
    String.raw`(?:\u001b[PX^_]|[\u0090\u0098\u009e\u009f])[^\u001b\u0018\u001a\u0080-\u009f]*(?:\u001b\\|[\u009c\u0018\u001a])?`,
    String.raw`\u001b[\u0020-\u002f]*[\u0030-\u007e]?`,
    // A stray ST. No class of all C1 controls here: a wide first-character class makes V8 try every
    // position and costs a factor of four in throughput.
    String.raw`\u009c`,
  ].join('|'),
  'g',
);

/** Removes escape sequences from a complete string. Returns the input itself when it has none. */
export function stripAnsi(text: string): string {
  SPECIAL.lastIndex = 0;
  if (!SPECIAL.test(text)) return text;
  return text.replace(SEQUENCE, '');
}

/**
 * Streaming step. The regex gives the right text for the whole chunk (an unfinished sequence at the
 * end is dropped, as the state machine drops it). The state to carry into the next chunk is found
 * by running the state machine from the last ESC/C1 introducer only: whatever state the stream was
 * in before that character, after it the state is equivalent.
 */
function stripChunk(chunk: string, initial: State): [string, State] {
  let head = '';
  let rest = chunk;
  if (initial !== GROUND) {
    const [text, state, stoppedAt] = strip(chunk, initial, true);
    if (state !== GROUND) return [text, state];
    head = text;
    rest = chunk.slice(stoppedAt);
  }
  SPECIAL.lastIndex = 0;
  if (!SPECIAL.test(rest)) return [head + rest, GROUND];
  const state = strip(rest.slice(lastSpecialIndex(rest)), GROUND)[1];
  return [head + rest.replace(SEQUENCE, ''), state];
}

function lastSpecialIndex(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    const code = text.charCodeAt(index);
    if (code === ESC || code === 0x90 || code === 0x98 || (code >= 0x9b && code <= 0x9f)) return index;
  }
  return 0;
}

/** The reference state machine; with `untilGround`, stops as soon as it is back in GROUND. */
function strip(text: string, initial: State, untilGround = false): [string, State, number] {
  let state = initial;
  const length = text.length;
  let out = '';
  let index = 0;
  if (state === GROUND) {
    SPECIAL.lastIndex = 0;
    if (!SPECIAL.test(text)) return [text, GROUND, text.length];
    index = SPECIAL.lastIndex - 1;
    out = text.slice(0, index);
  }
  while (index < length) {
    if (state === GROUND) {
      if (untilGround) return [out, GROUND, index];
      SPECIAL.lastIndex = index;
      const found = SPECIAL.exec(text);
      const stop = found === null ? length : found.index;
      if (stop > index) out += text.slice(index, stop);
      if (found === null) return [out, GROUND, length];
      index = stop;
    }
    const code = text.charCodeAt(index);
    index++;
    switch (state) {
      case GROUND:
        state = enterFromGround(code);
        break;
      case ESCAPE:
        if (code === 0x5b) state = CSI;
        else if (code === 0x5d) state = OSC;
        else if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) state = CONTROL_STRING;
        else if (code >= 0x20 && code <= 0x2f) state = ESCAPE_INTERMEDIATE;
        else if (code >= 0x30 && code <= 0x7e) state = GROUND;
        else if (code === ESC) state = ESCAPE;
        else {
          // ESC followed by a control or text that no terminal reads as a sequence: drop the ESC only.
          state = GROUND;
          index--;
        }
        break;
      case ESCAPE_INTERMEDIATE:
        if (code >= 0x20 && code <= 0x2f) break;
        state = GROUND;
        if (code < 0x30 || code > 0x7e) index--;
        break;
      case CSI:
        if (code >= 0x20 && code <= 0x3f) break;
        state = GROUND;
        // A final byte ends the sequence; anything else aborts it and is read again as text.
        if (code < 0x40 || code > 0x7e) index--;
        break;
      case OSC:
      case CONTROL_STRING: {
        // Skip the payload: only BEL (OSC), ESC, ST, CAN, SUB and C1 controls change the state.
        let payload = code;
        for (;;) {
          if (payload === ESC) {
            state = STRING_ESCAPE;
            break;
          }
          if ((payload === BEL && state === OSC) || payload === 0x9c || payload === CAN || payload === SUB) {
            state = GROUND;
            break;
          }
          if (payload >= 0x80 && payload <= 0x9f) {
            // Any C1 control aborts the string; introducers start their own sequence, others are text.
            state = enterFromGround(payload);
            if (state === GROUND) index--;
            break;
          }
          if (index >= length) break; // the payload goes on in the next chunk
          payload = text.charCodeAt(index);
          index++;
        }
        break;
      }
      case STRING_ESCAPE:
        if (code === 0x5c) state = GROUND;
        else {
          state = ESCAPE;
          index--;
        }
        break;
    }
  }
  return [out, state, length];
}

function enterFromGround(code: number): State {
  if (code === ESC) return ESCAPE;
  if (code === 0x9b) return CSI;
  if (code === 0x9d) return OSC;
  if (code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) return CONTROL_STRING;
  return GROUND; // a stray ST (0x9c) is dropped; GROUND never sees other C1 controls (SPECIAL skips them)
}
