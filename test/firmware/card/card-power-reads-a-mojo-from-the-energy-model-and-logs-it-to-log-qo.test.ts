/**
 * card.power with a Mojo power monitor. References:
 * - card.power.req.notecard.api.json (notecard-schema): `minutes` ("How often, in minutes,
 *   Notecard should log power consumption in a `_log.qo` Note. The default value is `720`"),
 *   `reset` (counters back to 0); skus CELL, CELL+WIFI, WIFI.
 * - card.power.rsp.notecard.api.json: `temperature`, `voltage`, `milliamp_hours` (cumulative,
 *   reset by `reset`), sample `{"temperature": 26.03, "voltage": 4.2, "milliamp_hours": 3.96}`.
 * - reference/notecard-behavior.md: a request a variant lacks answers `request not supported for
 *   <radio> {not-supported}`.
 */
import { describe, expect, it } from "vitest";
import { World } from "../../../firmware/world/World.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

const HOUR = 3_600_000;

async function withMojo(variant = "cell") {
  const clock = new FakeClock();
  const world = new World({ clock, temperature: 21.5 });
  world.setMojo(true);
  const t = await bootTestModule({ clock, world, variant });
  return { clock, world, t };
}

function logNotes(t: TestModule) {
  return [...(t.module.notebox.file("_log.qo")?.notes.values() ?? [])];
}

describe("card.power and a Mojo", () => {
  it("answers the Mojo's reading: the temperature, the supply's voltage and the charge the energy model counted", async () => {
    const { clock, t } = await withMojo();
    const first = await t.req({ req: "card.power" });
    expect(Object.keys(first).sort()).toEqual(["milliamp_hours", "temperature", "voltage"]);
    expect(first["temperature"]).toBe(21.5);
    expect(first["voltage"]).toBeCloseTo(t.power.volts, 1);
    await clock.advance(10 * HOUR);
    const later = await t.req({ req: "card.power" });
    // Ten idle hours at the cellular module's 0.008 mA (firmware/power/EnergyMeter.ts).
    expect(later["milliamp_hours"] as number).toBeCloseTo((first["milliamp_hours"] as number) + 0.08, 6);
    expect(later["milliamp_hours"]).toBeCloseTo(t.module.energy.report().mah, 6);
  });

  it("reset:true sets the counters back to 0, and they count on from there across a restart", async () => {
    const { clock, t } = await withMojo();
    await clock.advance(5 * HOUR);
    expect((await t.req({ req: "card.power", reset: true }))["milliamp_hours"]).toBe(0);
    await clock.advance(HOUR);
    await t.module.restart(); // as card.restart: the counters are saved first
    expect((await t.req({ req: "card.power" }))["milliamp_hours"]).toBeCloseTo(0.008, 4);
  });

  it("logs a reading to _log.qo every 720 minutes by default, and every `minutes` when told", async () => {
    const { clock, t } = await withMojo();
    await clock.advance(719 * 60_000);
    expect(logNotes(t)).toHaveLength(0);
    await clock.advance(60_000);
    expect(logNotes(t)).toHaveLength(1);
    expect(Object.keys(logNotes(t)[0]!.body!).sort()).toEqual(["milliamp_hours", "temperature", "voltage"]);

    await t.req({ req: "card.power", minutes: 60 });
    await clock.advance(3 * HOUR);
    expect(logNotes(t)).toHaveLength(4);
    // -1 goes back to the default cadence.
    await t.req({ req: "card.power", minutes: -1 });
    await clock.advance(11 * HOUR);
    expect(logNotes(t)).toHaveLength(4);
  });

  it("without a Mojo answers {not-supported} and logs nothing; a Mojo attached later is read at once", async () => {
    const { clock, world, t } = await withMojo();
    world.setMojo(false);
    expect((await t.req({ req: "card.power" }))["err"]).toBe(
      "card.power: no Mojo power monitor is attached (it measures the module's supply) {not-supported}",
    );
    await clock.advance(24 * HOUR);
    expect(logNotes(t)).toHaveLength(0);
    world.setMojo(true);
    expect(await t.req({ req: "card.power" })).toHaveProperty("milliamp_hours");
  });

  it.each([
    ["lora", "lora"],
    ["ntn", "ntn"],
  ])("is not a request of the %s module (not among the schema's skus)", async (variant, radio) => {
    const { t } = await withMojo(variant);
    expect((await t.req({ req: "card.power" }))["err"]).toBe(
      `request not supported for ${radio} {not-supported}`,
    );
  });

  it("refuses a negative cadence other than -1", async () => {
    const { t } = await withMojo();
    expect((await t.req({ req: "card.power", minutes: -5 }))["err"]).toBe(
      "card.power: minutes must be minutes > 0, or -1 (got -5)",
    );
  });
});
