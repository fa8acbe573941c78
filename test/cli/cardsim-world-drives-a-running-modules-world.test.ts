import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cliProcess.js";
import { startControlledModule, type ControlledModule } from "../support/controlledModule.js";

/**
 * `cardsim module --location --control` and `cardsim world`, as a user runs them: the module
 * starts where it is told, and another terminal moves it, shakes it, heats it and reads it back.
 */
describe("cardsim world", () => {
  let running: ControlledModule;
  let control: string;

  const world = async (...what: string[]) =>
    (await running.world(...what)) as { position?: { lat: number; lon: number } };
  const request = async (req: Record<string, unknown>) =>
    (await running.request(req)) as {
      value?: number;
      count?: number;
      state?: Record<string, unknown>[];
    };

  beforeAll(async () => {
    running = await startControlledModule(["--location", "42.3601,-71.0589"]);
    control = running.control;
  }, 30_000);

  afterAll(async () => {
    await running?.stop();
  });

  it("reads where --location put the module, and moves it", async () => {
    expect((await world("status")).position).toMatchObject({ lat: 42.3601, lon: -71.0589 });
    await world("move", "52.52,13.405");
    expect((await world("status")).position).toMatchObject({ lat: 52.52, lon: 13.405 });
  });

  it("heats, shakes and drives the AUX pins, and the module's requests feel it", async () => {
    await world("temp", "31.5");
    expect((await request({ req: "card.temp" })).value).toBeCloseTo(31.5, 0);
    await request({ req: "card.motion.mode", start: true });
    await request({ req: "card.motion" }); // counts start from here
    await world("shake", "3");
    expect((await request({ req: "card.motion" })).count).toBe(3);
    await request({ req: "card.aux", mode: "gpio", usage: ["input", "off", "off", "off"] });
    await world("aux", "1", "high");
    expect((await request({ req: "card.aux", mode: "gpio" })).state?.[0]).toMatchObject({ high: true });
  });

  it("answers a mistake with one line: a wrong verb, a place off Earth, no module there", async () => {
    const wrong = await runCli(["world", "--control", control, "fly", "away"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim()).toMatch(/^cardsim world: .*expected one of: status; move LAT,LON/);
    const off = await runCli(["world", "--control", control, "move", "95,0"]);
    expect(off.code).toBe(2);
    expect(off.stderr.trim().split("\n")).toHaveLength(1);
    const nobody = await runCli(["world", "--control", "127.0.0.1:1", "status"]);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr.trim()).toMatch(
      /no module answers at 127\.0\.0\.1:1: start one with cardsim module --control/,
    );
  });
});
