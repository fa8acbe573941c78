import { describe, expect, it } from "vitest";
import type { World } from "../../../firmware/world/World.js";
import type { FakeClock } from "../../../runtime/FakeClock.js";
import { bootInWorld, notesOf } from "../../support/worldFixture.js";

/** A pulse on AUX `pin`: HIGH for `ms`, then LOW. */
async function pulse(world: World, clock: FakeClock, pin: 1 | 2 | 3 | 4, ms = 20): Promise<void> {
  world.aux.drive(pin, true);
  await clock.advance(ms);
  world.aux.drive(pin, false);
  await clock.advance(ms);
}

describe("card.aux gpio mode", () => {
  it("starts off, and without a usage sets AUX1 off, AUX2 LOW, AUX3 HIGH, AUX4 input", async () => {
    const { t, world } = await bootInWorld();
    expect(await t.req({ req: "card.aux" })).toEqual({ mode: "off" });
    expect(await t.req({ req: "card.aux", mode: "gpio" })).toEqual({
      mode: "gpio",
      state: [{}, { low: true }, { high: true }, { low: true }],
    });
    expect([1, 2, 3, 4].map((p) => world.aux.driven(p as 1))).toEqual([undefined, false, true, undefined]);
    world.aux.drive(4, true);
    expect((await t.req({ req: "card.aux" }))["state"]).toEqual([
      {},
      { low: true },
      { high: true },
      { high: true },
    ]);
  });

  it("sets each pin by usage, leaving pins given as empty strings as they were", async () => {
    const { t, world } = await bootInWorld();
    await t.req({ req: "card.aux", mode: "gpio", usage: ["high", "input-pullup", "input-pulldown", "low"] });
    expect((await t.req({ req: "card.aux", usage: ["", "", "off"] }))["state"]).toEqual([
      { high: true },
      { high: true },
      {},
      { low: true },
    ]);
    expect(world.aux.setupOf(2)).toEqual({ output: false, pull: "up" });
    // Kept in flash: a restart sets the pins up again.
    world.aux.setup(1, { output: false, pull: "none" });
    const again = await t.reboot();
    expect(world.aux.driven(1)).toBe(true);
    expect((await again.req({ req: "card.aux" }))["state"]).toEqual([
      { high: true },
      { high: true },
      {},
      { low: true },
    ]);
  });

  it.each([
    [{ usage: ["off"] }, /usage needs mode "gpio"/],
    [
      { mode: "gpio", usage: ["off", "off", "off", "off", "off"] },
      /usage lists at most 4 pins \(AUX1 to AUX4\), got 5/,
    ],
    [{ mode: "gpio", usage: ["blink"] }, /usage "blink" is not one of "", off, high, low/],
    [{ mode: "gpio", usage: [1] }, /\{io\}/],
    [{ mode: "disco" }, /mode "disco" is not one of dfu, gpio, led/],
    [{ rate: 1000 }, /rate "1000" is not one of -1, 300/],
    [{ mode: "neo-monitor", count: 3 }, /count "3" is not one of -1, 1, 2, 5/],
    [{ mode: "gpio", file: "states.dbx" }, /outbound queue/],
  ])("refuses %j, changing nothing", async (args, message) => {
    const { t } = await bootInWorld();
    const commits = t.store.commits;
    expect((await t.req({ req: "card.aux", ...args })).err).toMatch(message);
    expect(t.store.commits).toBe(commits);
  });

  it("counts rising edges into seconds-long buckets up to max, the rest rolling into the last", async () => {
    const { t, world, clock } = await bootInWorld({ timeKnown: true });
    const start = Math.floor(clock.now() / 1000);
    const reply = await t.req({
      req: "card.aux",
      mode: "gpio",
      usage: ["", "", "", "count"],
      seconds: 2,
      max: 3,
      start: true,
    });
    expect(reply).toEqual({
      mode: "gpio",
      state: [{}, { low: true }, { high: true }, { count: [0] }],
      time: start,
      seconds: 2,
    });
    for (let i = 0; i < 3; i++) await pulse(world, clock, 4); // 120 ms: bucket 1
    await clock.advance(2000);
    await pulse(world, clock, 4); // bucket 2
    await clock.advance(10_000);
    for (let i = 0; i < 5; i++) await pulse(world, clock, 4); // past max: the last bucket
    expect((await t.req({ req: "card.aux" }))["state"]).toEqual([
      {},
      { low: true },
      { high: true },
      { count: [3, 1, 5] },
    ]);
    await t.req({ req: "card.aux", start: true });
    expect((await t.req({ req: "card.aux" }))["state"]).toContainEqual({ count: [0] });
  });

  it("counts falling edges with count-pullup, one total without buckets, ignoring bounces shorter than ms", async () => {
    const { t, world, clock } = await bootInWorld();
    await t.req({ req: "card.aux", mode: "gpio", usage: ["count-pullup", "count", "off", "off"], ms: 10 });
    expect(world.aux.level(1)).toBe(true);
    for (let i = 0; i < 4; i++) {
      world.aux.drive(1, false);
      await clock.advance(50);
      world.aux.drive(1, true);
      await clock.advance(50);
    }
    // A bouncy contact on AUX2: three edges within 2 ms count once.
    world.aux.drive(2, true);
    await clock.advance(1);
    world.aux.drive(2, false);
    await clock.advance(1);
    world.aux.drive(2, true);
    await clock.advance(100);
    expect((await t.req({ req: "card.aux" }))["state"]).toEqual([{ count: [4] }, { count: [1] }, {}, {}]);
  });

  it("with sync, writes the pins' state to _button.qo on an input change and asks for a sync", async () => {
    const { t, world, clock } = await bootInWorld();
    t.power.onUsb = true;
    await t.req({ req: "card.aux", mode: "gpio", usage: ["input", "off", "off", "count"], sync: true });
    expect(notesOf(t, "_button.qo")).toEqual([]); // setting the pins up is not a change
    world.aux.drive(1, true);
    await clock.runDue();
    world.aux.drive(1, false);
    await pulse(world, clock, 4);
    await pulse(world, clock, 4); // within the same second as the first count: no second note
    await t.req({ req: "card.aux" });
    expect(notesOf(t, "_button.qo").map((n) => n.body)).toEqual([
      { state: [{ high: true }, {}, {}, { count: [0] }], power: true },
      { state: [{ low: true }, {}, {}, { count: [0] }], power: true },
      { state: [{ low: true }, {}, {}, { count: [1] }], power: true },
    ]);
    expect(t.module.notebox.takeSyncRequests()).toEqual(["_button.qo"]);
    await t.req({ req: "card.aux", connected: true, file: "doors.qo" });
    world.aux.drive(1, true);
    await t.req({ req: "card.aux" });
    expect(notesOf(t, "doors.qo")).toHaveLength(1);
    expect(t.module.notebox.syncRequests().size).toBe(0);
  });

  it("fires ATTN on an input change when auxgpio is enabled", async () => {
    const { t, world } = await bootInWorld();
    await t.req({ req: "card.aux", mode: "gpio", usage: ["input-pulldown", "off", "off", "off"] });
    await t.req({ req: "card.attn", mode: "arm,auxgpio" });
    expect(t.module.attn.high).toBe(false);
    world.aux.drive(1, true);
    expect(t.module.attn.high).toBe(true);
  });
});

describe("LEDs, monitor, DFU and the carrier on the AUX pins", () => {
  it("card.led lights LEDs on AUX2-4 in led mode and colors an RGB LED in rgb mode", async () => {
    const { t, world } = await bootInWorld();
    expect((await t.req({ req: "card.led", mode: "red", on: true })).err).toMatch(
      /set card.aux mode to led, rgb or neo first/,
    );
    await t.req({ req: "card.aux", mode: "led" });
    await t.req({ req: "card.led", mode: "red", on: true });
    await t.req({ req: "card.led", mode: "yellow", on: true });
    expect([2, 3, 4].map((p) => world.aux.driven(p as 2))).toEqual([true, false, true]);
    await t.req({ req: "card.led", mode: "red", off: true });
    expect(t.module.sensors.aux.leds()).toEqual(["yellow"]);
    expect((await t.req({ req: "card.led", mode: "blue", on: true })).err).toMatch(
      /blue is not a color of led mode/,
    );
    expect((await t.req({ req: "card.led", mode: "red", on: true, off: true })).err).toMatch(
      /\{incompatible\}/,
    );
    expect((await t.req({ req: "card.led", mode: "red" })).err).toMatch(/on:true or off:true is required/);
    await t.req({ req: "card.aux", mode: "rgb" });
    await t.req({ req: "card.led", mode: "magenta", on: true });
    expect([2, 3, 4].map((p) => world.aux.driven(p as 2))).toEqual([true, false, true]);
    await t.req({ req: "card.aux", mode: "neo" });
    await t.req({ req: "card.led", mode: "orange", on: true });
    expect(t.module.sensors.aux.leds()).toEqual(["orange"]);
  });

  it("dfu mode holds AUX1 HIGH (no outboard update runs); card.monitor keeps an override", async () => {
    const { t, world } = await bootInWorld();
    expect(await t.req({ req: "card.aux", mode: "dfu" })).toEqual({ mode: "dfu" });
    expect(world.aux.driven(1)).toBe(true);
    expect(await t.req({ req: "card.aux", mode: "monitor" })).toEqual({ mode: "led-monitor" });
    expect(await t.req({ req: "card.monitor", mode: "green", count: 5 })).toEqual({});
    expect(t.module.sensors.aux.monitor).toEqual({ mode: "green", count: 5, usb: false });
    expect((await t.req({ req: "card.monitor", mode: "blue" })).err).toMatch(
      /mode "blue" is not one of green, red, yellow/,
    );
  });

  it("card.carrier reports charging from the carrier's AUX_CHARGING signal once told to watch it", async () => {
    const { t, world } = await bootInWorld();
    world.setCharging(true);
    expect(await t.req({ req: "card.carrier" })).toEqual({ mode: "off" });
    expect(await t.req({ req: "card.carrier", mode: "charging" })).toEqual({
      mode: "charging",
      charging: true,
    });
    world.setCharging(false);
    expect(await t.req({ req: "card.carrier" })).toEqual({ mode: "charging" });
    expect(await t.req({ req: "card.carrier", mode: "-" })).toEqual({ mode: "off" });
  });

  it("card.aux.serial keeps the AUX UART's mode and rate", async () => {
    const { t } = await bootInWorld();
    expect(await t.req({ req: "card.aux.serial" })).toEqual({ mode: "req", rate: 115200 });
    expect(await t.req({ req: "card.aux.serial", mode: "gps" })).toEqual({ mode: "gps", rate: 9600 });
    expect(
      await t.req({ req: "card.aux.serial", mode: "notify,signals,env", rate: 57600, max: 63, ms: 10 }),
    ).toEqual({
      mode: "notify,signals,env",
      rate: 57600,
      max: 63,
      ms: 10,
    });
    expect((await t.req({ req: "card.aux.serial", mode: "notify,weather" })).err).toMatch(
      /is not one of req, gps/,
    );
    expect(await t.req({ req: "card.aux.serial", mode: "-", rate: -1, max: -1, ms: -1 })).toEqual({
      mode: "req",
      rate: 115200,
    });
  });

  it("follows the LoRa module's limits: gpio without counters, NeoPixels only", async () => {
    const { t } = await bootInWorld({ variant: "lora" });
    expect((await t.req({ req: "card.aux", mode: "led" })).err).toBe(
      "card.aux mode led is not supported for lora {not-supported}",
    );
    expect((await t.req({ req: "card.aux", mode: "gpio", usage: ["count"] })).err).toMatch(
      /usage count is not supported/,
    );
    expect(await t.req({ req: "card.aux", mode: "gpio", usage: ["input"] })).toMatchObject({ mode: "gpio" });
    expect((await t.req({ req: "card.led", mode: "red", on: true })).err).toMatch(/not supported for lora/);
    for (const req of ["card.aux.serial", "card.monitor", "card.carrier"])
      expect((await t.req({ req })).err).toBe("request not supported for lora {not-supported}");
  });
});
