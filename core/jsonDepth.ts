/**
 * How deeply JSON nests, measured without recursion so that no input can overflow the stack of
 * the code measuring it. The hub (request bodies, stored rows) and the module (request lines) use
 * the same measure and the same limit. Platform-free.
 *
 * Depth counts objects and arrays: a scalar is 0, `{}` and `[1]` are 1, `{"a":[{}]}` is 3.
 */

/** The deepest nesting the hub and the module accept in a JSON document. */
export const MAX_JSON_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The nesting depth of JSON text, read without parsing it: the most objects and arrays open at
 * once, brackets inside strings not counted. Counting stops as soon as the depth passes `limit`
 * (the answer is then `limit + 1`), so a huge document costs no more than it must. Text that is
 * not JSON gets a number too (from its brackets); whether it is JSON is for the parser to say.
 */
export function jsonTextDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) {
      depth--;
    }
  }
  return max;
}

/**
 * `jsonTextDepth` of the UTF-8 bytes of JSON text, read from the bytes: the same number, since
 * every character it counts (quotes, backslashes, brackets) is one ASCII byte, and no byte of a
 * character beyond ASCII (nor an invalid byte) is an ASCII one. About three times as fast as the
 * text's scan on a body a request brings (bytes are read without string access).
 */
export function jsonBytesDepth(bytes: Uint8Array, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      // To the string's closing quote: a backslash takes the byte after it along.
      for (i++; i < n; i++) {
        const s = bytes[i]!;
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) {
      depth--;
    }
  }
  return max;
}

/**
 * The nesting depth of a parsed JSON value (no cycles), walked with an explicit stack; counted
 * and limited as `jsonTextDepth` counts the value's JSON text.
 */
export function jsonValueDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const values: unknown[] = [value];
  /** The depth of the container each pending value sits in. */
  const outer: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = outer.pop()! + 1;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) {
      max = depth;
      if (max > limit) return max;
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") {
        values.push(child);
        outer.push(depth);
      }
    }
  }
  return max;
}

/** Whether JSON text (or its UTF-8 bytes) nests deeper than `max` (default MAX_JSON_DEPTH) levels. */
export function jsonTooDeep(text: string | Uint8Array, max = MAX_JSON_DEPTH): boolean {
  return (typeof text === "string" ? jsonTextDepth(text, max) : jsonBytesDepth(text, max)) > max;
}
