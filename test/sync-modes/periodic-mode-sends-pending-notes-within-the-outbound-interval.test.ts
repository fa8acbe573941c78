import { afterEach, describe, expect, it } from "vitest";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe("periodic mode", () => {
  it("sends pending notes at the outbound cadence, and nothing when nothing is pending", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "periodic", outbound: 60 });
    await w.run(3 * 60 * MINUTE);
    expect(w.sessions).toHaveLength(0); // nothing pending: no sync
    await w.req({ req: "note.add", file: "data.qo", body: { n: 1 } });
    await w.run(59 * MINUTE);
    expect(w.sessions).toHaveLength(0);
    await w.run(2 * MINUTE);
    expect(w.starts()).toEqual([240]);
    expect(w.sessions[0]!.why).toBe("outbound");
    expect(await w.world.events(w.sim)).toHaveLength(1);
  });

  it("checks inbound at its cadence whatever is pending", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", inbound: 120 });
    await w.run(6 * 60 * MINUTE);
    expect(w.starts((s) => s.why === "inbound")).toEqual([120, 240, 360]);
  });

  it("an explicit sync does not reset the cadence", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", outbound: 60, inbound: 90 });
    await w.run(30 * MINUTE);
    await w.world.sync(w.sim);
    await w.req({ req: "note.add", body: { n: 1 } });
    await w.run(60 * MINUTE);
    expect(w.starts()).toEqual([30, 60, 90]);
    expect(w.sessions.map((s) => s.why)).toEqual(["explicit", "outbound", "inbound"]);
  });

  it("align:true checks on clock multiples of the interval", async () => {
    w = await modesWorld();
    await w.run(7 * MINUTE);
    await w.req({ req: "hub.set", inbound: 60, align: true });
    await w.run(3 * 60 * MINUTE);
    // The fake clock starts on the hour: checks at :00, not 60 minutes after the setting.
    expect(w.starts()).toEqual([60, 120, 180]);
  });

  it("without intervals it behaves as minimum: only explicit syncs and sync:true", async () => {
    w = await modesWorld();
    await w.req({ req: "note.add", body: { n: 1 } });
    await w.run(24 * 60 * MINUTE, 60 * MINUTE);
    expect(w.sessions).toHaveLength(0);
    await w.req({ req: "note.add", body: { n: 2 }, sync: true });
    await w.run(MINUTE);
    expect(w.sessions.map((s) => s.why)).toEqual(["note"]);
    expect(w.sim.module.schedule.nextSync()).toBeUndefined();
  });

  it("voutbound follows the supply state in force, and a supply change re-plans at once", async () => {
    w = await modesWorld();
    w.sim.power.onUsb = false;
    await w.req({ req: "card.voltage", mode: "lipo" }); // has a usb state
    await w.req({ req: "hub.set", voutbound: "usb:10;high:240;normal:240;low:240;dead:0" });
    await w.req({ req: "note.add", body: { n: 1 } });
    expect(w.sim.module.schedule.nextSync()).toMatchObject({ why: "outbound", at: w.t0 + 240 * MINUTE });
    await w.run(5 * MINUTE);
    w.sim.power.onUsb = true; // usb: the 10-minute cadence from the last check
    expect(w.sim.module.schedule.nextSync()).toMatchObject({ why: "outbound", at: w.t0 + 10 * MINUTE });
    await w.run(25 * MINUTE);
    expect(w.starts()).toEqual([10]);
  });
});
