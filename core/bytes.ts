/** The parts one after the other, in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const encoder = new TextEncoder();
/** Text up to this long is encoded in JavaScript when it is ASCII: its bytes fit on V8's heap. */
const SHORT = 64;

/**
 * `text` in UTF-8, as `TextEncoder.encode` gives it. Short ASCII text (most of a module's flash
 * records) is copied byte by byte into a new array: `TextEncoder` costs about a microsecond a call
 * on Node 20 whatever the length, a call into C++ and a buffer outside the heap.
 */
export function encodeUtf8(text: string): Uint8Array {
  const length = text.length;
  if (length > SHORT) return encoder.encode(text);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(text);
    out[i] = c;
  }
  return out;
}

const NOT_ASCII = /[\u0080-\uffff]/;

/** How many bytes `text` takes in UTF-8 (without encoding it). */
export function utf8Length(text: string): number {
  // The regular expression engine finds the first character past ASCII several times faster than
  // a loop over the text: a message of ASCII (most are) is measured by it alone.
  const first = text.search(NOT_ASCII);
  if (first < 0) return text.length;
  let bytes = text.length;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
