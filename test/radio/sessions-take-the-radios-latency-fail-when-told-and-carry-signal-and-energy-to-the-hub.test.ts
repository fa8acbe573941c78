import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import type { SimHubLink } from "../../firmware/radio/SimHubLink.js";
import { SimRadioConditions } from "../../firmware/radio/RadioConditions.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld } from "../sync/support/syncWorld.js";

/** A module linked to the world's hub in process through its own radio (latency, failures). */
async function moduleWithRadio(w: SyncWorld, radio: SimRadioConditions): Promise<SimulatedModule> {
  return w.module({ hub: { inProcess: w.services.sync, product: w.productUid }, radio });
}

async function sessionRecords(w: SyncWorld, sim: SimulatedModule): Promise<JsonObject[]> {
  const page = await w.services.store.telemetry.listSessions(
    w.projectUid,
    sim.module.deviceUid,
    { firstSyncOnly: false },
    { offset: 0, limit: 100 },
  );
  return page.items.map((s) => s.data as JsonObject);
}

describe("sessions over the radio model", () => {
  let w: SyncWorld;
  beforeEach(async () => {
    w = await SyncWorld.start("in-process");
  });
  afterEach(async () => {
    await w.close();
  });

  it("each exchange takes the radio's latency on the fake clock: the session waits for time, not for a timer of the host", async () => {
    const radio = new SimRadioConditions(w.clock);
    const sim = await moduleWithRadio(w, radio);
    radio.latency(1500);
    const started = w.clock.now();
    await w.req(sim, { req: "hub.sync" });
    let done = false;
    void sim.module.sync.idle().then(() => (done = true));
    // Nothing moves until the clock does: the in-process hub is not blocked, only waiting.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(done).toBe(false);
    expect((await w.req(sim, { req: "card.wireless" }))["status"]).toBe("{cell-registered}");
    while (!done) await w.clock.advance(500);
    const elapsed = w.clock.now() - started;
    const [record] = await sessionRecords(w, sim);
    expect(record).toBeDefined();
    // A session is several exchanges (hello, open, the notefiles, close), each exactly 1.5 s.
    const exchanges = (sim.hubLink as SimHubLink).exchanges;
    expect(exchanges).toBeGreaterThanOrEqual(3);
    expect(elapsed).toBe(exchanges * 1500);
    // The energy model counts that time as radio-on time.
    expect(sim.module.energy.report().radioOnMs).toBe(elapsed);
    expect((await w.req(sim, { req: "hub.sync.status" }))["status"]).toMatch(/\{sync-end\}/);
  });

  it("failConnects(n) fails the next n sessions before the hub hears them; the one after succeeds", async () => {
    const radio = new SimRadioConditions(w.clock);
    const sim = await moduleWithRadio(w, radio);
    radio.failConnects(2);
    expect((await w.sync(sim))["status"]).toMatch(/\{sync-error\}/);
    expect(radio.connectFailuresLeft).toBe(1);
    // The first failure to reach the hub opens no penalty box; the second opens the 15-minute one,
    // and hub.sync.status says so.
    expect((await w.sync(sim))["status"]).toMatch(/^connect delayed \(15\.0 min remaining\)/);
    expect(radio.connectFailuresLeft).toBe(0);
    expect(await sessionRecords(w, sim)).toHaveLength(0);
    expect((await w.sync(sim, { allow: true }))["status"]).toMatch(/\{sync-end\}/);
    expect(await sessionRecords(w, sim)).toHaveLength(1);
    expect(sim.module.energy.report().sessions).toBe(3);
    expect(sim.module.energy.report().dataSessions).toBe(1);
  });

  it("an outage of the hub alone keeps registration: card.wireless still shows the signal, and the sync fails until it ends", async () => {
    const radio = new SimRadioConditions(w.clock);
    const sim = await moduleWithRadio(w, radio);
    radio.outage("hub", 60_000);
    expect((await w.req(sim, { req: "card.wireless" }))["count"]).toBe(3);
    expect((await w.sync(sim))["status"]).toMatch(/\{sync-error\}/);
    await w.clock.advance(60_000);
    expect((await w.sync(sim))["status"]).toMatch(/\{sync-end\}/);
  });

  it("the session record and the _session.qo event carry rssi, rsrp, rsrq, sinr, bars, rat and bearer, and the record the hp_* counters", async () => {
    const radio = new SimRadioConditions(w.clock);
    const sim = await moduleWithRadio(w, radio);
    radio.signal("poor", "catm");
    const boot = w.clock.now();
    await w.sync(sim);
    const bytes = sim.module.energy.report().bytes;
    radio.latency(2000);
    await w.clock.advance(3_600_000);
    await w.req(sim, { req: "hub.sync" });
    while (sim.module.sync.status().running) await w.clock.advance(1000);
    const [second, first] = await sessionRecords(w, sim); // newest first
    const signal = { rat: "catm", bearer: "LTE Cat-M1", rssi: -97, rsrp: -119, rsrq: -18, sinr: -3, bars: 1 };
    expect(first).toMatchObject(signal);
    expect(second).toMatchObject(signal);
    // The counters at the start of a session: the first saw none, the second the first session.
    expect(first).toMatchObject({ hp_cycles_total: 0, hp_cycles_data: 0, hp_secs_total: 0, hp_secs_data: 0 });
    expect(second).toMatchObject({ hp_cycles_total: 1, hp_cycles_data: 1, hp_secs_total: 0 });
    // One session (0.3 mAh), its bytes (0.002 mAh a kB) and an hour asleep (0.008 mA): cell defaults.
    const hours = (w.clock.now() - boot) / 3_600_000;
    expect(hours).toBeGreaterThanOrEqual(1);
    expect(second!["power_mah"]).toBeCloseTo(0.3 + (bytes / 1000) * 0.002 + 0.008 * 1, 3);
    const events = await w.events(sim, { system: true });
    const begins = events.filter((e) => e.file === "_session.qo" && e.data["req"] === "session.begin");
    expect(begins.length).toBeGreaterThanOrEqual(2);
    for (const e of begins) expect(e.data).toMatchObject(signal);
  });
});
