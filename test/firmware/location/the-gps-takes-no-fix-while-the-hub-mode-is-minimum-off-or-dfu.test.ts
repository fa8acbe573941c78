import { describe, expect, it } from "vitest";
import { bootInWorld, SALEM } from "../../support/worldFixture.js";

/**
 * hub.set.req.notecard.api.json, `mode`: "The Notecard must be in `periodic` or `continuous`
 * mode to use the onboard GPS module." In `minimum`, `off` and `dfu` (the schema: `dfu` is
 * effectively `off`) the receiver stays off and no fix is taken; back in periodic or continuous
 * mode it searches again.
 */
describe("the GPS and the hub mode", () => {
  it.each(["minimum", "off", "dfu"])("takes no fix while the hub mode is %s", async (mode) => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "hub.set", mode });
    await t.req({ req: "card.location.mode", mode: "continuous" });
    await clock.advance(120_000);
    const reply = await t.req({ req: "card.location" });
    expect(reply["lat"]).toBeUndefined();
    expect(reply["status"]).toBe("GPS inactive {gps-inactive}");
  });

  it("searches again once the hub mode is periodic, and stops fixing when it leaves it", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "hub.set", mode: "minimum" });
    await t.req({ req: "card.location.mode", mode: "continuous" });
    await clock.advance(60_000);
    expect((await t.req({ req: "card.location" }))["lat"]).toBeUndefined();
    await t.req({ req: "hub.set", mode: "periodic" });
    // The next tick of the continuous location mode (60 s), then a cold start.
    await clock.advance(180_000);
    const fixed = await t.req({ req: "card.location" });
    expect(fixed).toMatchObject({ mode: "continuous", lat: SALEM.lat });
    await t.req({ req: "hub.set", mode: "off" });
    await clock.advance(120_000);
    const off = await t.req({ req: "card.location" });
    expect(off["status"]).toBe("GPS inactive {gps-inactive}");
    // The last fix is kept and not renewed.
    expect(off["lat"]).toBe(SALEM.lat);
    await clock.advance(300_000);
    expect((await t.req({ req: "card.location" }))["time"]).toBe(off["time"]);
  });

  it("a periodic location mode takes its first fix when the hub mode allows it", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "hub.set", mode: "off" });
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 60 });
    await clock.advance(180_000);
    expect((await t.req({ req: "card.location" }))["lat"]).toBeUndefined();
    await t.req({ req: "hub.set", mode: "periodic" });
    await clock.advance(180_000);
    expect(await t.req({ req: "card.location" })).toMatchObject({ lat: SALEM.lat, lon: SALEM.lon });
  });
});
