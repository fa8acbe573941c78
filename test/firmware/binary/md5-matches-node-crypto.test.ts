import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Md5, md5Hex } from "../../../core/md5.js";

describe("MD5", () => {
  it("gives the reference digest in lowercase hex", () => {
    expect(md5Hex(new Uint8Array([1, 2, 3, 4]))).toBe("08d6c05a21512a79a1dfeb9d2a8f262f");
    expect(md5Hex(new Uint8Array())).toBe("d41d8cd98f00b204e9800998ecf8427e");
  });

  it("matches node:crypto for any data and any split into updates", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.array(fc.nat(2000), { maxLength: 6 }),
        (data, cuts) => {
          const expected = createHash("md5").update(data).digest("hex");
          expect(md5Hex(data)).toBe(expected);
          const md5 = new Md5();
          let at = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            const end = Math.min(cut, data.length);
            if (end > at) md5.update(data.subarray(at, end));
            at = Math.max(at, end);
          }
          md5.update(data.subarray(at));
          expect(md5.hex()).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("handles the full 130554-byte buffer", () => {
    const data = new Uint8Array(130554).map((_, i) => (i * 7) & 0xff);
    expect(md5Hex(data)).toBe(createHash("md5").update(data).digest("hex"));
  });
});
