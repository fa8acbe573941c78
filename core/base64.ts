/** Standard base64 (RFC 4648 §4) on Uint8Array, strict on decode, for a core without Buffer. */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + "==";
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + "=";
  }
  return out;
}

/**
 * Decodes base64, returning undefined when the text is not valid base64: characters outside the
 * alphabet, a length that is not a multiple of 4, misplaced padding or non-zero padding bits.
 * Padding may be omitted (some hosts strip it); whitespace is not accepted.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  let len = text.length;
  if (len % 4 !== 0) {
    // Padding may be left out, but not cut short ("AQ=").
    if (len % 4 === 1 || text.endsWith("=")) return undefined;
    text += "=".repeat(4 - (len % 4));
    len = text.length;
  }
  let pad = 0;
  if (len > 0 && text[len - 1] === "=") pad++;
  if (len > 1 && text[len - 2] === "=") pad++;
  const out = new Uint8Array((len / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < len; i += 4) {
    const last = i + 4 === len;
    const c: number[] = [];
    for (let j = 0; j < 4; j++) {
      const code = text.charCodeAt(i + j);
      if (code === 61 /* = */) {
        if (!last || j < 4 - pad) return undefined;
        c.push(0);
        continue;
      }
      const v = code < 128 ? LOOKUP[code]! : -1;
      if (v < 0) return undefined;
      c.push(v);
    }
    const n = (c[0]! << 18) | (c[1]! << 12) | (c[2]! << 6) | c[3]!;
    if (last && pad === 2 && (n & 0xffff) !== 0) return undefined;
    if (last && pad === 1 && (n & 0xff) !== 0) return undefined;
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 0xff;
    if (o < out.length) out[o++] = n & 0xff;
  }
  return out;
}
