/** CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the same as zlib's crc32. */
const TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c >>> 0;
}

export function crc32(data: Uint8Array, previous = 0): number {
  let crc = ~previous;
  for (let i = 0; i < data.length; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

const encoder = new TextEncoder();

/** CRC-32 of the UTF-8 encoding of `text` (without allocating for the usual all-ASCII JSON). */
export function crc32Text(text: string): number {
  let crc = ~0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return crc32(encoder.encode(text.slice(i)), ~crc >>> 0);
    crc = TABLE[(crc ^ c) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}
