/**
 * Whether a JSON request body holds a lone UTF-16 surrogate in any string or key once parsed:
 * SQLite stores text as UTF-8, where a lone surrogate has no form, so the hub refuses such a body
 * rather than store something other than what the caller was told was saved.
 */

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `value`, parsed from `text`, holds a lone surrogate. A parsed string's code units are
 * the text's own, copied, or those of its `\u` escapes: without an escape the text holds one
 * exactly when the value does (a pair in the text is inside one string, or is not JSON), so only
 * a text with escapes has its value walked. A sync's batch of notes is one such check, not one per
 * string.
 */
export function parsedHoldsLoneSurrogate(text: string, value: unknown): boolean {
  if (!text.includes("\\u")) return LONE.test(text);
  return holdsLoneSurrogate(value);
}

/** True when a parsed JSON value holds a string (or key) with a lone UTF-16 surrogate. */
export function holdsLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (LONE.test(v)) return true;
    } else if (Array.isArray(v)) {
      stack.push(...v);
    } else if (v !== null && typeof v === "object") {
      for (const [key, item] of Object.entries(v)) {
        if (LONE.test(key)) return true;
        stack.push(item);
      }
    }
  }
  return false;
}
