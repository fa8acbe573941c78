import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cobsDecode, CobsError } from "../../../firmware/host/Cobs.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const md5 = (d: Uint8Array) => createHash("md5").update(d).digest("hex");

describe("card.binary.put with arbitrary data", () => {
  it("stores exactly what decodes, or reports {bad-bin} and keeps the buffer as it was", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 300 }).filter((b) => !b.includes(0x0a)),
        fc.boolean(),
        async (line, announce) => {
          const t = await bootTestModule({ binaryMax: 200 });
          const before = new Uint8Array([1, 2, 3]);
          t.module.binary.fill(before);
          const put = await t.req({
            req: "card.binary.put",
            offset: 3,
            ...(announce ? { cobs: line.length } : {}),
          });
          if (put.err) {
            // Only a size that cannot fit is refused up front.
            expect(put.err).toMatch(/\{too-big\}/);
            return;
          }
          expect(await t.module.handleLine(line)).toBeUndefined();
          const state = await t.req({ req: "card.binary" });
          let decoded: Uint8Array | undefined;
          try {
            decoded = cobsDecode(line);
          } catch (error) {
            expect(error).toBeInstanceOf(CobsError);
          }
          if (decoded && 3 + decoded.length <= 200) {
            const whole = new Uint8Array([...before, ...decoded]);
            expect(state).toMatchObject({ length: whole.length, status: md5(whole) });
          } else {
            expect(state.err).toMatch(/\{bad-bin\}/);
            expect(state.length).toBe(3);
            expect(t.module.binary.bytes()).toEqual(before);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
