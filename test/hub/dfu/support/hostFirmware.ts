/** A host image: seeded bytes with a firmware::info description at `at` (default near its start). */
export function hostFirmware(length: number, info?: Record<string, unknown>, at?: number): Buffer {
  const out = Buffer.alloc(length);
  let x = length | 1;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  if (info) {
    const text = Buffer.from(`firmware::info:${JSON.stringify(info)}\0`);
    if (text.length > length) throw new Error("the image is too short for its description");
    text.copy(out, at ?? Math.min(512, length - text.length));
  }
  return out;
}
