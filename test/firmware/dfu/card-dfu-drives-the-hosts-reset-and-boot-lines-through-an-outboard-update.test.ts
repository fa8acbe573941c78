import { describe, expect, it } from "vitest";
import { concatBytes } from "../../../core/bytes.js";
import { md5Hex } from "../../../core/md5.js";
import type { HostDfuLines } from "../../../firmware/dfu/HostDfuLines.js";
import type { FakeClock } from "../../../runtime/FakeClock.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

const APP = "app$20260101000000.bin";

/** A host MCU's RESET and BOOT inputs and its bootloader, recording what the module did. */
class RecordingHost implements HostDfuLines {
  readonly edges: { t: number; line: "reset" | "boot"; level: string }[] = [];
  readonly programmed: Uint8Array[] = [];
  clock: FakeClock | undefined;

  reset(asserted: boolean): void {
    this.edges.push({ t: this.clock?.now() ?? 0, line: "reset", level: asserted ? "low" : "high" });
  }

  boot(high: boolean | undefined): void {
    this.edges.push({
      t: this.clock?.now() ?? 0,
      line: "boot",
      level: high === undefined ? "released" : high ? "high" : "low",
    });
  }

  program(_offset: number, bytes: Uint8Array): void {
    this.programmed.push(bytes.slice());
  }
}

async function rig(lines = new RecordingHost()) {
  const t = await dfuRig({ dfu: { hostLines: lines } });
  lines.clock = t.clock;
  return { t, lines };
}

describe("card.dfu", () => {
  it("answers the host class it is set for, and checks its arguments", async () => {
    const { t } = await rig();
    expect(await t.dfu({ req: "card.dfu" })).toEqual({});
    expect(await t.dfu({ req: "card.dfu", name: "esp32", on: true })).toEqual({ name: "esp32" });
    expect(await t.dfu({ req: "card.dfu", mode: "altdfu" })).toEqual({ name: "esp32" });
    expect(t.sim.module.dfu.outboardSettings()).toEqual({ name: "esp32", on: true, altdfu: true });
    expect(await t.dfu({ req: "card.dfu", off: true, seconds: 60 })).toEqual({ name: "esp32" });
    expect(t.sim.module.dfu.outboardEnabled()).toBe(false);
    await t.clock.advance(60_001);
    expect(t.sim.module.dfu.outboardEnabled()).toBe(true);
    expect(await t.dfu({ req: "card.dfu", name: "-" })).toEqual({});
    expect(t.sim.module.dfu.outboardSettings()).toEqual({ altdfu: true });
    const err = async (r: Record<string, unknown>) => (await t.req({ req: "card.dfu", ...r }))["err"];
    expect(await err({ name: "avr" })).toBe(
      'card.dfu: name "avr" is not one of esp32, stm32, stm32-bi, mcuboot, -',
    );
    expect(await err({ on: true, off: true })).toBe(
      "card.dfu: on and off cannot be used together {incompatible}",
    );
    expect(await err({ seconds: 5 })).toBe(
      "card.dfu: seconds is the time outboard updates stay off, so it needs off:true",
    );
    expect(await err({ mode: "spi" })).toBe('card.dfu: mode "spi" is not one of altdfu, aux, off');
  });

  it.each([
    ["stm32", "high"],
    ["stm32-bi", "low"],
    ["esp32", "low"],
  ])(
    "on a %s host: BOOT %s, a RESET pulse, the image at 115200 baud, BOOT released, RESET again",
    async (name, boot) => {
      const { t, lines } = await rig();
      await t.dfu({ req: "card.dfu", name, on: true });
      const bytes = hostImage(11_520);
      t.hub.offer("user", APP, bytes);
      await t.sync();
      const began = t.clock.now();
      await t.clock.advance(3000);
      expect(lines.edges.map((e) => `${e.line} ${e.level} +${e.t - began}`)).toEqual([
        `boot ${boot} +0`,
        "reset low +0",
        "reset high +10",
        // 100 ms for the bootloader to start, then 11520 bytes, 10 bits each at 115200 baud: one
        // second on the wire (1001 ms: three blocks, each rounded up to a whole ms).
        "boot released +1111",
        "reset low +1111",
        "reset high +1121",
      ]);
      expect(md5Hex(concatBytes(lines.programmed))).toBe(md5Hex(bytes));
      expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "completed" });
    },
  );

  it("on an MCUboot host leaves BOOT alone", async () => {
    const { t, lines } = await rig();
    await t.dfu({ req: "card.dfu", name: "mcuboot", on: true });
    t.hub.offer("user", APP, hostImage(1000));
    await t.sync();
    await t.clock.advance(1000);
    expect(lines.edges.filter((e) => e.line === "boot").map((e) => e.level)).toEqual([
      "released",
      "released",
    ]);
  });

  it("resets the host when the module starts, unless stop:true said not to", async () => {
    const { t, lines } = await rig();
    await t.dfu({ req: "card.dfu", name: "stm32", on: true });
    await t.sim.powerCycle();
    await t.clock.advance(100);
    expect(lines.edges.map((e) => `${e.line} ${e.level}`)).toEqual(["reset low", "reset high"]);
    await t.dfu({ req: "card.dfu", stop: true });
    await t.sim.powerCycle();
    await t.clock.advance(100);
    expect(lines.edges).toHaveLength(2);
    await t.dfu({ req: "card.dfu", start: true });
    await t.sim.powerCycle();
    await t.clock.advance(100);
    expect(lines.edges).toHaveLength(4);
  });

  it("waits while outboard updates are off, then writes the image it kept", async () => {
    const { t, lines } = await rig();
    await t.dfu({ req: "card.dfu", name: "stm32", on: true });
    await t.dfu({ req: "card.dfu", off: true, seconds: 600 });
    t.hub.offer("user", APP, hostImage(4096));
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "ready" });
    await t.clock.advance(600_000);
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "outboard-ready" });
    await t.clock.advance(2000);
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "completed" });
    expect(lines.programmed.length).toBe(1);
  });

  it("starts the outboard update over when the module restarted in the middle of it", async () => {
    const { t, lines } = await rig();
    await t.dfu({ req: "card.dfu", name: "stm32", on: true, stop: true });
    const bytes = hostImage(40_000);
    t.hub.offer("user", APP, bytes);
    await t.sync();
    await t.clock.advance(1500); // part of the 3.5 s it takes
    expect(lines.programmed.length).toBeGreaterThan(0);
    expect(lines.programmed.length).toBeLessThan(10);
    lines.programmed.length = 0;
    await t.sim.powerCycle();
    await t.clock.advance(5000);
    expect(md5Hex(concatBytes(lines.programmed))).toBe(md5Hex(bytes));
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "completed" });
  });
});
