import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("requests that are not there", () => {
  it.each(["card.trace"])(
    "%s answers a clear {not-supported} error naming what it waits for, without {io}",
    async (req) => {
      const t = await bootTestModule({ variant: "cell-wifi" });
      const { err } = await t.req({ req });
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
    ["cell", "ntn.status", "cell"],
    ["lora", "hub.log", "lora"],
    ["lora", "card.random", "lora"],
    ["lora", "dfu.status", "lora"],
    ["lora", "dfu.get", "lora"],
    ["ntn", "card.dfu", "ntn"],
  ])("on %s, %s answers as the real module: request not supported for %s", async (variant, req, radio) => {
    const t = await bootTestModule({ variant });
    expect((await t.req({ req })).err).toBe(`request not supported for ${radio} {not-supported}`);
  });

  it("still reaches the later-capability error where the variant has the request", async () => {
    const t = await bootTestModule({ variant: "ntn" });
    expect((await t.req({ req: "ntn.status" })).err).toMatch(
      /satellite \(NTN\) radio model .*\{not-supported\}/,
    );
    const wifi = await bootTestModule({ variant: "wifi" });
    expect((await wifi.req({ req: "card.sleep" })).err).toMatch(/deep sleep model/);
  });
});
