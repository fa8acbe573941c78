import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimPowerSource } from "../../firmware/PowerSource.js";
import { SimRadioConditions } from "../../firmware/radio/RadioConditions.js";
import type { SimHubLink } from "../../firmware/radio/SimHubLink.js";
import { parseDischarge, playDischarge } from "../../runtime/DischargeCurve.js";
import { SyncWorld } from "../sync/support/syncWorld.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("the energy model over a month", () => {
  let w: SyncWorld;
  beforeEach(async () => {
    w = await SyncWorld.start("in-process");
  });
  afterEach(async () => {
    await w.close();
  });

  it("after 30 days of poor coverage on a sagging battery the module still syncs, and the charge it used is exact", async () => {
    const radio = new SimRadioConditions(w.clock);
    const power = new SimPowerSource(4.2, false);
    const sim = await w.module({ hub: { inProcess: w.services.sync, product: w.productUid }, radio, power });
    radio.signal("poor");
    radio.latency(2000);
    await w.req(sim, { req: "card.voltage", mode: "lipo" });
    const playing = playDischarge(power, w.clock, parseDischarge("linear:4.2-3.3/30d"));
    const start = w.clock.now();
    let ok = 0;
    for (let sync = 0; sync < 120; sync++) {
      if (sync % 10 === 5) radio.failConnects(1); // now and then the hub cannot be reached
      await w.req(sim, { req: "hub.sync" });
      while (sim.module.sync.status().running) await w.clock.advance(1000);
      if (/\{sync-end\}/.test(String((await w.req(sim, { req: "hub.sync.status" }))["status"]))) ok++;
      await w.clock.advance(6 * HOUR - ((w.clock.now() - start) % (6 * HOUR)));
    }
    await playing.done;
    expect(w.clock.now() - start).toBe(30 * DAY);
    // The battery sagged through the lipo thresholds; the module synced to the end.
    expect(power.volts).toBe(3.3);
    expect((await w.req(sim, { req: "card.voltage" }))["mode"]).toBe("low");
    expect(ok).toBe(108);
    expect((await w.req(sim, { req: "hub.sync.status" }))["status"]).toMatch(/\{sync-end\}/);

    const report = sim.module.energy.report();
    const exchanges = (sim.hubLink as SimHubLink).exchanges;
    expect(report.sessions).toBe(120);
    expect(report.dataSessions).toBe(108);
    // Every exchange took the latency; a refused connection never reached the radio (none).
    expect(report.radioOnMs).toBe(exchanges * 2000);
    expect(report.poweredMs).toBe(30 * DAY);
    const expected =
      120 * 0.3 + (report.radioOnMs / HOUR) * 100 + (report.bytes / 1000) * 0.002 + 30 * 24 * 0.008;
    expect(report.mah).toBeCloseTo(expected, 9);
    expect(report.idleMah).toBeCloseTo(5.76, 12);
    expect(report.sessionMah).toBeCloseTo(36, 12);
    // The figures of this seed, so that a change of the model shows here. (66.088 until the module
    // sent its public key at every open, so that hello need not say whether the hub knows a device:
    // about 150 bytes more a session, 0.033 mAh over the month at 0.002 mAh a kB; then 66.121 and
    // 864,000 ms on the air until sessions resumed with the hub's ticket: a resumed session sends
    // no hello, 84 exchanges of 2 s fewer over the month, 4.7 mAh at 100 mA; then 61.386 and
    // 696,000 ms until the firmware offer rode on open: a data session with no firmware news sends
    // no firmware message, 108 exchanges of 2 s fewer, 6.0 mAh at 100 mA, and about 5 kB fewer;
    // then 55.376 and 480,000 ms until the open carried the push and the close: a session with
    // nothing from the hub is one exchange, 107 exchanges of 2 s fewer, 5.9 mAh at 100 mA.)
    expect(report.radioOnMs).toBe(266_000);
    expect(Math.round(report.mah * 1000) / 1000).toBe(49.423);
  });

  it("counters survive a restart and a power cycle, and overrides change the rates", async () => {
    const radio = new SimRadioConditions(w.clock);
    const sim = await w.module({
      hub: { inProcess: w.services.sync, product: w.productUid },
      radio,
      energy: { sessionMah: 1, idleMa: 1, perKbMah: 0, radioOnMa: 0 },
    });
    await w.sync(sim);
    await w.clock.advance(2 * HOUR);
    await w.req(sim, { req: "card.restart" }).catch(() => undefined);
    expect(sim.module.energy.report().sessions).toBe(1);
    expect(sim.module.energy.report().mah).toBeCloseTo(1 + 2, 9);
    await w.clock.advance(HOUR);
    await sim.powerCycle();
    expect(sim.module.energy.report().mah).toBeCloseTo(1 + 3, 9);
    expect(sim.module.energy.rates).toEqual({ sessionMah: 1, idleMa: 1, perKbMah: 0, radioOnMa: 0 });
  });
});
