/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: the same value as zlib's crc32), the one
 * CRC of the product: request CRCs on the host line, the flash journal's checks and firmware
 * images' digests. Computed eight bytes at a time ("slicing-by-8"): the flash checks every byte
 * it reads at boot, so this runs over whole journals, several times faster than a byte at a time.
 */
const TABLES = new Uint32Array(8 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLES[n] = c >>> 0;
}
for (let n = 0; n < 256; n++) {
  for (let t = 1; t < 8; t++) {
    const previous = TABLES[(t - 1) * 256 + n]!;
    TABLES[t * 256 + n] = (previous >>> 8) ^ TABLES[previous & 0xff]!;
  }
}

/** CRC-32 of `data`, continuing from `previous` (the CRC of what came before it). */
export function crc32(data: Uint8Array, previous = 0): number {
  const t = TABLES;
  let crc = ~previous;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    const one = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    const two = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
    crc =
      t[1792 + (one & 0xff)]! ^
      t[1536 + ((one >>> 8) & 0xff)]! ^
      t[1280 + ((one >>> 16) & 0xff)]! ^
      t[1024 + (one >>> 24)]! ^
      t[768 + (two & 0xff)]! ^
      t[512 + ((two >>> 8) & 0xff)]! ^
      t[256 + ((two >>> 16) & 0xff)]! ^
      t[two >>> 24]!;
  }
  for (; i < data.length; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

const encoder = new TextEncoder();

/** CRC-32 of the UTF-8 encoding of `text` (without allocating for the usual all-ASCII JSON). */
export function crc32Text(text: string): number {
  let crc = ~0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return crc32(encoder.encode(text.slice(i)), ~crc >>> 0);
    crc = TABLES[(crc ^ c) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}
