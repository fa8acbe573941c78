import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { I2C_AVAILABLE_MAX } from "../../../firmware/host/I2cTarget.js";
import { BSC, IDEAL, PICO } from "../../../hil/i2c/I2cHardwareProfile.js";
import { i2cRig } from "./i2cRig.js";

const transaction = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), bytes: fc.uint8Array({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant("query" as const), want: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("read" as const), length: fc.integer({ min: 0, max: 260 }) }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 60 }) }),
);

describe("I2C target under arbitrary traffic", () => {
  it("never throws, never reports more than 253 available, and still answers a reset and a request", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(IDEAL, BSC, PICO),
        fc.array(transaction, { maxLength: 40 }),
        async (profile, steps) => {
          const r = await i2cRig({ profile, host: { mtu: 14 } });
          for (const step of steps) {
            if (step.kind === "write") await r.bus.write(0x17, step.bytes);
            else if (step.kind === "query") await r.bus.write(0x17, Uint8Array.from([0, step.want]));
            else if (step.kind === "read") {
              const read = await r.bus.read(0x17, step.length);
              if (read.bytes.length >= 2 && read.underrun === 0)
                expect(read.bytes[0]!).toBeLessThanOrEqual(I2C_AVAILABLE_MAX);
            } else await r.clock.advance(step.ms);
          }
          await r.clock.advance(10);
          // The host library's recovery: newlines until only \r\n comes back, then a request.
          let clean = false;
          for (let attempt = 0; attempt < 10 && !clean; attempt++) {
            await r.host.send(new TextEncoder().encode("\n"));
            await r.clock.advance(250);
            const got = await r.host.drain(500);
            clean = got.length > 0 && got.every((b) => b === 0x0d || b === 0x0a);
          }
          expect(clean).toBe(true);
          expect(await r.host.request('{"req":"echo","text":"ok"}')).toBe('{"text":"ok"}\r\n');
        },
      ),
      { numRuns: 150 },
    );
  });
});
