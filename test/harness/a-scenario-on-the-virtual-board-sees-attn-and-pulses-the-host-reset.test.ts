import { afterEach, describe, expect, it } from "vitest";
import type { SimGpioChip } from "../../hil/gpio/SimGpioChip.js";
import { Scenario } from "../../harness/Scenario.js";

describe("a scenario on the virtual board", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("has the Pi's GPIO lines and I2C bus, simulated, on virtual time", async () => {
    sc = await Scenario.start({ board: "virtual", i2c: { profile: "pico" }, timeKnown: true, capture: true });
    expect(sc.driver.virtual).toBe(true);
    expect(sc.rig!.board.name).toBe("virtual");
    expect(sc.i2c!.bus!.profile.name).toBe("pico");
    const host = sc.attachNoteC({ transport: "i2c" });
    const chip = sc.rig!.gpio as SimGpioChip;

    // The host arms ATTN on its command queue; the line goes LOW.
    expect(await host.request({ req: "card.attn", mode: "arm,files", files: ["commands.qi"] })).toEqual({});
    expect(sc.attn).toBe(false);
    expect(chip.level("GPIO17")).toBe(false);

    // A command arrives from the hub: ATTN goes HIGH at that moment, and the host reads it.
    await sc.advance(30_000);
    const before = sc.elapsed();
    await sc.world.inboundNote("commands.qi", { body: { reboot: true } });
    await sc.expectAttn(true, { timeout: 1000 });
    expect(sc.attnEdges.at(-1)).toEqual({ t: before, high: true });
    expect(chip.level("GPIO17")).toBe(true);
    expect(await host.request({ req: "card.attn" })).toMatchObject({ files: ["commands.qi"], set: true });
    expect(await host.request({ req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { reboot: true },
    });
    expect(sc.capture!.entries.filter((e) => e.link === "attn").map((e) => e.info?.["attn"])).toEqual([
      "low",
      "high",
    ]);

    // Hub environment changes fire ATTN too, when the host asks for it.
    await host.request({ req: "card.attn", mode: "arm,env" });
    await sc.world.hubEnv({ project: { mode: "eco" } });
    await sc.expectAttn(true);
    sc.ignore(() => true);
    await sc.finish();
  });

  it("pulses the host's RESET line, and the emulated host restarts with it", async () => {
    sc = await Scenario.start({ board: "virtual" });
    const host = sc.attachNoteC();
    await host.request({ req: "echo", text: "before" });
    const chip = sc.rig!.gpio as SimGpioChip;
    const start = sc.clock.now();
    await sc.resetHost(20);
    expect(chip.history("GPIO27").slice(-2)).toEqual([
      { at: start, high: false },
      { at: start + 20, high: true },
    ]);
    expect(host.noteC.sequence).toBe(0);
    expect(await host.request({ req: "echo", text: "after" })).toEqual({ text: "after" });
    expect(host.events.map((e) => e.event).filter((e) => e === "reset" || e === "restart")).toEqual([
      "reset",
      "restart",
      "reset",
    ]);
    sc.ignore(() => true);
    await sc.finish();
  });
});
