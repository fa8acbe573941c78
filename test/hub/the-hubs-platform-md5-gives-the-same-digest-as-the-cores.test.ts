import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Md5, md5Hex as coreMd5 } from "../../core/md5.js";
import { md5Hex as platformMd5 } from "../../hub/md5.js";

describe("MD5: the hub's platform digest and core/md5.ts", () => {
  it("give the same lowercase hex for any bytes, any text (as UTF-8) and any split of an incremental digest", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ unit: "grapheme" }),
        fc.nat(),
        (bytes, text, cut) => {
          expect(platformMd5(bytes)).toBe(coreMd5(bytes));
          expect(platformMd5(text)).toBe(coreMd5(new TextEncoder().encode(text)));
          const at = bytes.length === 0 ? 0 : cut % bytes.length;
          expect(new Md5().update(bytes.subarray(0, at)).update(bytes.subarray(at)).hex()).toBe(
            platformMd5(bytes),
          );
        },
      ),
    );
    expect(platformMd5("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
  });
});
