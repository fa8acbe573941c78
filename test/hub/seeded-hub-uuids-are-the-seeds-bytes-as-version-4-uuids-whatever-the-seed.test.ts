import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomBytes } from "../../core/Random.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { HubIds } from "../../hub/HubIds.js";

/** What a seeded hub's UUID is: 16 bytes of its randomness, version 4 and the RFC variant set. */
function expected(random: SeededRandom): string {
  const b = randomBytes(random, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(b).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe("a seeded hub's UUIDs", () => {
  it("are its randomness's bytes as version-4 UUIDs, one after another, for any seed", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 8 }), (seed, count) => {
        const ids = new HubIds(new SeededRandom(seed));
        const reference = new SeededRandom(seed);
        for (let i = 0; i < count; i++) {
          const uuid = ids.uuid();
          expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          expect(uuid).toBe(expected(reference));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("and the time-ordered ones are written from their bytes the same way", () => {
    const ids = new HubIds(new SeededRandom(7));
    const uuid = ids.timeUuid(Date.UTC(2026, 0, 1));
    expect(uuid).toMatch(/^019b76da-a800-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
