import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("requests that are not there", () => {
  // Every request of the schema is built; what waits is options of built ones.
  it.each([
    ["note.add", { file: "data.qo", binary: true }],
    ["note.add", { file: "data.qo", body: { a: 1 }, key: "k" }],
  ] as const)(
    "%s with %o answers a clear {not-supported} error naming what it waits for, without {io}",
    async (req, args) => {
      const t = await bootTestModule({ variant: "cell-wifi" });
      const { err } = await t.req({ req, ...args });
      expect(err).toMatch(
        new RegExp(
          `^${req.replace(/\./g, "\\.")}: .+ is not available in this simulator release \\{not-supported\\}$`,
        ),
      );
      expect(err).not.toMatch(/\{io\}/);
      expect(t.store.commits).toBe(1); // only the identity written at first boot
    },
  );

  it.each([
    ["lora", "card.location.track", "lora"],
    ["lora", "card.triangulate", "lora"],
    ["lora", "card.motion", "lora"],
    ["lora", "card.illumination", "lora"],
    ["lora", "card.aux.serial", "lora"],
    ["cell", "card.wifi", "cell"],
    ["cell", "card.sleep", "cell"],
    ["lora", "ntn.status", "lora"],
    // ntn.status.req schema: CELL, CELL+WIFI, WIFI (a paired Starnote), not the Skylo module.
    ["ntn", "ntn.status", "ntn"],
    ["lora", "hub.log", "lora"],
    ["lora", "card.random", "lora"],
    ["lora", "dfu.status", "lora"],
    ["lora", "dfu.get", "lora"],
    ["ntn", "card.dfu", "ntn"],
  ])("on %s, %s answers as the real module: request not supported for %s", async (variant, req, radio) => {
    const t = await bootTestModule({ variant });
    expect((await t.req({ req })).err).toBe(`request not supported for ${radio} {not-supported}`);
  });
});
