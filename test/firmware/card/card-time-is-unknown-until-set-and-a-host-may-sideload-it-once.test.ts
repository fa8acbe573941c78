import { describe, expect, it } from "vitest";
import { CARD_KEYS } from "../../../firmware/config/CardSettings.js";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.time", () => {
  it('answers {"zone":"UTC,Unknown"} while the time is unknown', async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.time" })).toEqual({ zone: "UTC,Unknown" });
  });

  it("takes a sideloaded time once, then keeps counting on the module clock and ignores later ones", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.time", time: 1_780_000_000 })).toEqual({
      time: 1_780_000_000,
      zone: "UTC,Unknown",
    });
    await t.clock.advance(61_000);
    expect((await t.req({ req: "card.time", time: 1_700_000_000 })).time).toBe(1_780_000_061);
    expect(t.module.noteTime()).toBe(1_780_000_061);
  });

  it("refuses an implausible sideload and stays unknown", async () => {
    const t = await bootTestModule();
    const reply = await t.req({ req: "card.time", time: 12345 });
    expect(reply.err).toMatch(/card\.time: time must be UNIX epoch seconds/);
    expect(reply.err).not.toMatch(/\{io\}/);
    expect(await t.req({ req: "card.time" })).toEqual({ zone: "UTC,Unknown" });
    expect((await t.req({ req: "card.time", time: "now" })).err).toMatch(/\{io\}/);
  });

  it("reports the zone and place the sync engine recorded for the last session", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await t.module.notebox.transact(() =>
      t.module.notebox.setConfig(CARD_KEYS.timeZone, {
        zone: "CDT,America/Chicago",
        minutes: -300,
        area: "Chicago, IL",
        country: "US",
        lat: 41.88,
        lon: -87.63,
      }),
    );
    expect(await t.req({ req: "card.time" })).toEqual({
      time: Math.floor(t.clock.now() / 1000),
      zone: "CDT,America/Chicago",
      minutes: -300,
      area: "Chicago, IL",
      country: "US",
      lat: 41.88,
      lon: -87.63,
    });
  });
});
