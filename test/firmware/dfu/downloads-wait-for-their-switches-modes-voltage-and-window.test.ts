import { describe, expect, it } from "vitest";
import { IMAGE_OBJECT } from "../../../firmware/dfu/DfuAgent.js";
import type { MemoryLog } from "../../../firmware/ModuleLog.js";
import { inDfuPeriod, parseDfuPeriod } from "../../../firmware/dfu/dfuPeriod.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";

const APP = "app$20260101000000.bin";
const firmwareMessages = (t: Awaited<ReturnType<typeof dfuRig>>) =>
  t.hub.messages.filter((m) => ["firmware", "read", "dfu"].includes(m.type)).length;

describe("downloads run only when the module may take them", () => {
  it.each(["minimum", "off"])("sends no firmware message in %s mode", async (mode) => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(1000));
    await t.req({ req: "hub.set", mode });
    await t.req({ req: "hub.sync" }); // minimum syncs when told; off ignores it
    await t.sim.module.sync.idle();
    expect(firmwareMessages(t)).toBe(0);
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("idle");
    await t.req({ req: "hub.set", mode: "periodic" });
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  });

  it("pauses while dfu.status off, says so, and continues after on", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(1000));
    expect(await t.dfu({ req: "dfu.status", off: true })).toEqual({
      mode: "idle",
      status: "no firmware update",
      off: true,
      on: false,
    });
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "downloading",
      status: "waiting: downloads are off (dfu.status off)",
      off: true,
    });
    expect(t.hub.reads).toEqual([]);
    expect(await t.dfu({ req: "dfu.status", on: true })).toMatchObject({ on: true });
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  });

  it("switches each target on its own", async () => {
    const t = await dfuRig();
    await t.dfu({ req: "dfu.status", name: "card", off: true });
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ on: true });
    expect(await t.dfu({ req: "dfu.status", name: "card" })).toMatchObject({ off: true });
  });

  it("follows vvalue: no downloads on a low supply, downloads again on USB", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(1000));
    await t.dfu({ req: "dfu.status", vvalue: "usb:1;high:1;normal:1;low:0;dead:0" });
    await t.req({ req: "card.voltage", mode: "lipo" });
    t.sim.power.set({ volts: 3.3, onUsb: false });
    await t.clock.advance(60_000);
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "downloading",
      status: "waiting: downloads are off on low supply (vvalue)",
    });
    t.sim.power.set({ volts: 5, onUsb: true });
    await t.clock.advance(60_000);
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  });

  it("refuses a vvalue that is not a voltage-variable string of 1s and 0s", async () => {
    const t = await dfuRig();
    expect((await t.req({ req: "dfu.status", vvalue: "usb:1;high" }))["err"]).toBe(
      'dfu.status: vvalue "usb:1;high" is not a valid voltage-variable string: "high" is not a state:value pair',
    );
    expect((await t.req({ req: "dfu.status", vvalue: "usb:2" }))["err"]).toBe(
      'dfu.status: vvalue "usb:2" must give each state 1 (downloads on) or 0 (off)',
    );
    expect((await t.req({ req: "dfu.status", on: true, off: true }))["err"]).toBe(
      "dfu.status: on and off cannot be used together {incompatible}",
    );
    expect((await t.req({ req: "dfu.status", name: "host" }))["err"]).toBe(
      'dfu.status: name "host" is not one of user, card',
    );
  });

  it("waits for the _dfu_period window in the module's local time", async () => {
    const t = await dfuRig();
    t.hub.offer("user", APP, hostImage(1000));
    // 2026-01-01 is a Thursday; the window: Saturdays and Sundays from 02:00 for 3 hours.
    t.hub.env = { device: { _dfu_period: "1000001,02,3" }, fleet: {}, project: {}, modified: 1 };
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      status: "waiting: outside the _dfu_period window",
    });
    t.hub.time = Date.UTC(2026, 0, 3, 3, 30); // Saturday 03:30
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  });

  it("reads _dfu_period as days from Sunday, a start hour and hours open, past midnight too", () => {
    const p = parseDfuPeriod("0000010,22,4")!; // Fridays 22:00 to Saturday 02:00
    const at = (d: number, h: number, m = 0) => Date.UTC(2026, 0, d, h, m) / 1000;
    expect(inDfuPeriod(p, at(2, 21, 59))).toBe(false); // Friday 21:59
    expect(inDfuPeriod(p, at(2, 22))).toBe(true);
    expect(inDfuPeriod(p, at(3, 1, 59))).toBe(true); // Saturday 01:59
    expect(inDfuPeriod(p, at(3, 2))).toBe(false);
    expect(inDfuPeriod(p, at(9, 23))).toBe(true); // the next Friday
    expect(parseDfuPeriod("1111111,24,1")).toBeUndefined();
    expect(parseDfuPeriod("weekends")).toBeUndefined();
  });
});

describe("the hub and the link can interrupt a download", () => {
  it("drops the image when the hub no longer wants it (a cancel)", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 2000 } });
    t.hub.offer("user", APP, hostImage(5000));
    await t.sync();
    t.hub.withdraw("user");
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "idle",
      status: "the hub cancelled the update",
    });
    expect(t.sim.module.images!.has(IMAGE_OBJECT.user)).toBe(false);
    expect(t.hub.steps("user").at(-1)).toMatchObject({ mode: "cancelled" });
  });

  it("starts over when the hub offers another image instead", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 2000 } });
    t.hub.offer("user", APP, hostImage(5000));
    await t.sync();
    const next = t.hub.offer("user", "app$20260102000000.bin", hostImage(3000, 9));
    await t.sync();
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({ mode: "ready", body: next });
    expect(t.hub.reads.filter((r) => r.name === next.name)[0]).toMatchObject({ offset: 0 });
  });

  it("reads a damaged chunk again, and gives the attempt up after three damaged copies", async () => {
    const t = await dfuRig();
    let damaged = 1;
    t.hub.damage = () => damaged-- > 0;
    t.hub.offer("user", APP, hostImage(70_000));
    await t.sync();
    expect((await t.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
    expect(t.hub.reads.map((r) => r.offset)).toEqual([0, 0, 65_536]);

    const u = await dfuRig();
    u.hub.damage = (r) => r.offset === 0;
    u.hub.offer("user", APP, hostImage(70_000));
    await u.sync();
    expect(await u.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "error",
      status: "the chunk at 0 arrived damaged 3 times",
    });
    u.hub.damage = () => false;
    await u.sync();
    expect((await u.dfu({ req: "dfu.status" }))["mode"]).toBe("ready");
  });

  it("ends in error when the hub no longer has the image", async () => {
    const t = await dfuRig({ dfu: { sessionBytes: 2000 } });
    t.hub.offer("user", APP, hostImage(5000));
    await t.sync();
    t.hub.vanished.add(APP);
    await t.sync();
    expect(await t.dfu({ req: "dfu.status" })).toMatchObject({
      mode: "error",
      status: "the hub no longer has the image",
    });
  });

  it("syncs as before with a hub that does not take firmware messages", async () => {
    const t = await dfuRig();
    t.hub.refuseFirmware = true;
    await t.req({ req: "note.add", file: "data.qo", body: { a: 1 } });
    expect(await t.sync()).toMatchObject({ status: "completed {sync-end}" });
    expect(t.hub.received).toHaveLength(1);
    expect((t.sim.log as MemoryLog).lines.some((e) => e.message.includes("refused a firmware message"))).toBe(
      true,
    );
  });
});
