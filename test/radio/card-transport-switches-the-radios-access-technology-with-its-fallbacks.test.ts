import { describe, expect, it } from "vitest";
import { bootTestModule } from "../support/moduleFixture.js";

/**
 * `card.transport` on every variant the schema lists (card.transport.req.notecard.api.json:
 * `skus` CELL, CELL+WIFI, SKYLO, WIFI; each `method`'s own `skus`), switching the radio model's
 * access technology: the first technology of the method the module has and the surroundings
 * cover carries the sessions; a fallback is kept for `seconds` (default 3600: "The amount of time
 * (in seconds) a Notecard will spend on any fallback transport before retrying the first
 * transport specified in the `method`").
 */
const ALL = ["cell", "cell-ntn", "dual-wifi-cell", "ntn", "wifi", "wifi-cell", "wifi-cell-ntn", "wifi-ntn"];

describe("card.transport", () => {
  it.each([
    ["cell", ["cell", "cell-ntn", "ntn"]],
    ["wifi", ["ntn", "wifi", "wifi-ntn"]],
    ["cell-wifi", ALL],
    ["ntn", ALL],
  ] as const)("on %s takes exactly the methods its SKU lists", async (variant, methods) => {
    const t = await bootTestModule({ variant });
    for (const method of ALL) {
      const reply = await t.req({ req: "card.transport", method });
      if ((methods as readonly string[]).includes(method)) expect(reply).toEqual({ method });
      else
        expect(reply["err"]).toBe(
          `method ${method} is not supported for ${t.module.variant.radio} {not-supported}`,
        );
    }
    expect(await t.req({ req: "card.transport", method: "-" })).toMatchObject({
      method: expect.any(String) as unknown,
    });
  });

  it("defaults to cell on a cellular module and wifi on a WiFi module, and runs on that technology", async () => {
    const cell = await bootTestModule({ variant: "cell" });
    expect(await cell.req({ req: "card.transport" })).toEqual({ method: "cell" });
    expect(cell.module.radio.state()).toMatchObject({ registered: true, rat: "lte", bearer: "LTE Cat-1" });
    const wifi = await bootTestModule({ variant: "wifi" });
    expect(await wifi.req({ req: "card.transport" })).toEqual({ method: "wifi" });
    expect(wifi.module.radio.state()).toMatchObject({ registered: true, rat: "wifi", bearer: "WiFi 2.4GHz" });
    expect(wifi.module.radio.state()).toMatchObject({ rsrp: 0, rsrq: 0, sinr: 0 });
  });

  it("on Cell+WiFi the method switches WiFi and cellular", async () => {
    const t = await bootTestModule({ variant: "cell-wifi" });
    expect(t.module.radio.state().rat).toBe("wifi");
    await t.req({ req: "card.transport", method: "cell" });
    expect(t.module.radio.state()).toMatchObject({ rat: "lte", registered: true });
    await t.req({ req: "card.transport", method: "wifi" });
    expect(t.module.radio.state()).toMatchObject({ rat: "wifi", registered: true });
    // WiFi only, and no WiFi here: no network at all.
    t.simulated.radio.coverage("wifi", false);
    expect(t.module.radio.state().registered).toBe(false);
  });

  it("wifi-cell falls back to cellular without WiFi and stays there for `seconds` before trying WiFi again", async () => {
    const t = await bootTestModule({ variant: "cell-wifi" });
    await t.req({ req: "card.transport", method: "wifi-cell", seconds: 600 });
    t.simulated.radio.coverage("wifi", false);
    expect(t.module.radio.state()).toMatchObject({ rat: "lte", registered: true });
    t.simulated.radio.coverage("wifi", true);
    await t.clock.advance(599_000);
    expect(t.module.radio.state().rat).toBe("lte");
    await t.clock.advance(1_000);
    expect(t.module.radio.state().rat).toBe("wifi");
  });

  it("satellite methods need the satellite radio: a cellular module on ntn has no network, on cell-ntn it stays cellular", async () => {
    const t = await bootTestModule({ variant: "cell" });
    await t.req({ req: "card.transport", method: "ntn" });
    expect(t.module.radio.state().registered).toBe(false);
    await t.req({ req: "card.transport", method: "cell-ntn" });
    expect(t.module.radio.state()).toMatchObject({ registered: true, rat: "lte" });
    const sat = await bootTestModule({ variant: "ntn" });
    await sat.req({ req: "card.transport", method: "cell-ntn" });
    sat.simulated.radio.coverage("cell", false);
    expect(sat.module.radio.state()).toMatchObject({ registered: true, rat: "ntn", bearer: "NTN" });
  });
});
