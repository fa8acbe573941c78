import cobs from "cobs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CobsError,
  cobsDecode,
  cobsEncode,
  cobsEncodedLength,
  cobsEncodedMaxLength,
  cobsGuaranteedFit,
} from "../../../firmware/host/Cobs.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const xor = (b: Uint8Array, k: number) => b.map((x) => x ^ k);

// Data with many zeros, newlines and long runs: where COBS goes wrong.
const payload = fc.oneof(
  fc.uint8Array({ maxLength: 1200 }),
  fc.array(fc.constantFrom(0x00, 0x0a, 0x11, 0xff), { maxLength: 800 }).map((a) => Uint8Array.from(a)),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 250, max: 260 }), fc.boolean())
    .map(([k, n, zero]) => {
      const a = new Uint8Array(k * 254 + n).fill(0x11);
      if (zero) a[a.length - 1] = 0;
      return a;
    }),
);

describe("COBS (XOR 0x0a) binary encoding", () => {
  it("matches the reference vectors", () => {
    expect(hex(cobsEncode(bytes("")))).toBe("0b");
    expect(hex(cobsEncode(bytes("00")))).toBe("0b0b");
    expect(hex(cobsEncode(bytes("01020304")))).toBe("0f0b08090e");
    expect(hex(cobsEncode(bytes("0a")))).toBe("0800");
    expect(hex(cobsEncode(bytes("68656c6c6f00776f726c64")))).toBe("0c626f6666650c7d6578666e");
    expect(cobsEncode(new Uint8Array(254).fill(0x11)).length).toBe(256);
  });

  it("is byte-identical to the npm cobs package XORed with 0x0a, and round-trips", () => {
    fc.assert(
      fc.property(payload, (data) => {
        const ours = cobsEncode(data);
        expect(hex(ours)).toBe(hex(xor(new Uint8Array(cobs.encode(Buffer.from(data))), 0x0a)));
        expect(ours.includes(0x0a)).toBe(false);
        expect(ours.length).toBe(cobsEncodedLength(data));
        expect(ours.length).toBeLessThanOrEqual(cobsEncodedMaxLength(data.length));
        expect(hex(cobsDecode(ours))).toBe(hex(data));
      }),
      { numRuns: 400 },
    );
  });

  it("rejects truncated runs, embedded end-of-packet bytes and empty packets", () => {
    expect(() => cobsDecode(new Uint8Array())).toThrow(CobsError);
    expect(() => cobsDecode(xor(bytes("0511"), 0x0a))).toThrow(/packet ends first/);
    expect(() => cobsDecode(xor(bytes("021100022"), 0x0a))).toThrow(CobsError);
    expect(() => cobsDecode(bytes("0f0b0a090e"))).toThrow(/end-of-packet/);
  });

  it("either decodes garbage to data that re-encodes to it, or throws CobsError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), (garbage) => {
        let decoded: Uint8Array;
        try {
          decoded = cobsDecode(garbage);
        } catch (error) {
          expect(error).toBeInstanceOf(CobsError);
          return;
        }
        const again = cobsEncode(decoded);
        // The one accepted non-canonical form: a packet ending in a full 254-byte block
        // without the empty final group an encoder adds.
        if (hex(again) !== hex(garbage)) expect(hex(again)).toBe(hex(garbage) + "0b");
      }),
      { numRuns: 2000 },
    );
  });

  it("sizes buffers like the host library: what guaranteedFit allows always fits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5000 }), (bufferLength) => {
        const n = cobsGuaranteedFit(bufferLength);
        expect(cobsEncodedMaxLength(n) + 1).toBeLessThanOrEqual(bufferLength);
      }),
    );
  });
});
