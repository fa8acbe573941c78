/**
 * COBS as the module's binary transfers use it: Consistent Overhead Byte Stuffing, then every
 * output byte XORed with the end-of-packet byte (`\n`, 0x0a by default). The encoded stream never
 * contains the end-of-packet byte, so binary rides the same newline-ended framing as JSON lines.
 *
 * Decoding is strict: a truncated run, an embedded end-of-packet byte or a zero code is an error,
 * never silently repaired garbage.
 */
export const BINARY_EOP = 0x0a;

export class CobsError extends Error {
  override readonly name = "CobsError";
}

/** Longest encoding of `length` bytes, without the end-of-packet byte. */
export function cobsEncodedMaxLength(length: number): number {
  return length + Math.floor(length / 254) + 1;
}

/** Exact encoded length of `data` (without the end-of-packet byte), without encoding it. */
export function cobsEncodedLength(data: Uint8Array): number {
  let length = 1;
  let code = 1;
  for (let i = 0; i < data.length; i++) {
    length++;
    if (data[i] === 0) code = 1;
    else if (++code === 0xff) {
      length++;
      code = 1;
    }
  }
  return length;
}

/** Most unencoded bytes guaranteed to fit a buffer of `bufferLength` bytes once encoded + EOP. */
export function cobsGuaranteedFit(bufferLength: number): number {
  const t = bufferLength - 2;
  if (t <= 0) return 0;
  return t - Math.floor((t + 1) / 255);
}

export function cobsEncode(data: Uint8Array, eop = BINARY_EOP): Uint8Array {
  const out = new Uint8Array(cobsEncodedMaxLength(data.length) + 1);
  let codeAt = 0;
  let o = 1;
  let code = 1;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === 0) {
      out[codeAt] = code ^ eop;
      codeAt = o++;
      code = 1;
      continue;
    }
    out[o++] = byte ^ eop;
    if (++code === 0xff) {
      out[codeAt] = code ^ eop;
      codeAt = o++;
      code = 1;
    }
  }
  out[codeAt] = code ^ eop;
  return out.slice(0, o);
}

/**
 * Decodes one packet (without its end-of-packet byte). Throws CobsError on anything that an
 * encoder could not have produced.
 */
export function cobsDecode(encoded: Uint8Array, eop = BINARY_EOP): Uint8Array {
  if (encoded.length === 0) throw new CobsError("empty packet");
  const out = new Uint8Array(encoded.length);
  let o = 0;
  let i = 0;
  while (i < encoded.length) {
    const code = encoded[i]! ^ eop;
    if (code === 0) throw new CobsError(`end-of-packet byte inside the packet at ${i}`);
    const end = i + code;
    if (end > encoded.length) throw new CobsError(`run at ${i} needs ${code - 1} bytes, packet ends first`);
    for (let j = i + 1; j < end; j++) {
      const byte = encoded[j]! ^ eop;
      if (byte === 0) throw new CobsError(`end-of-packet byte inside the packet at ${j}`);
      out[o++] = byte;
    }
    i = end;
    // A group shorter than a full block stands for a zero, except at the end of the packet.
    if (code !== 0xff && i < encoded.length) out[o++] = 0;
  }
  return out.slice(0, o);
}
