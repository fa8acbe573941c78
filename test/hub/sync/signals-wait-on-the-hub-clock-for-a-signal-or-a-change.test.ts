import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyReply, ScriptedModule } from "./support/ScriptedModule.js";
import { syncCases, SyncFixture } from "./support/syncFixture.js";

/** The environment of a device without variables, as every `signals` reply carries it. */
const NO_ENV = { device: {}, fleet: {}, project: {}, modified: 0 };

describe.each(syncCases())("signals (%s, %s)", (via, backend) => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start(via, { backend });
  });
  afterAll(async () => hub.close());

  const devicePath = (module: ScriptedModule) => `/v1/projects/${hub.projectUid}/devices/${module.device}`;

  /**
   * Moves the fake clock `ms` once the hub holds the module's wait, and says whether the hub
   * answered it: a wait the hub still holds (its session still listens) is not answered yet.
   */
  async function within<T>(
    module: ScriptedModule,
    promise: Promise<T>,
    ms: number,
  ): Promise<{ value?: T; settled: boolean }> {
    // The request reaches the hub over real sockets: time moves once the hub listens.
    await hub.services.notifier.listeningFor(module.device);
    await hub.clock.advance(ms);
    if (hub.services.notifier.isListening(module.device)) return { settled: false };
    return { value: await promise, settled: true };
  }

  it("says how many signals wait at open, takes those after `after` and acknowledges earlier ones", async () => {
    const module = await hub.module();
    await module.open();
    for (const n of [1, 2, 3]) {
      expect((await hub.api("POST", `${devicePath(module)}/signal`, { body: { n } })).json).toEqual({
        connected: false,
      });
    }
    const open = await module.open();
    expect(open.signals).toBe(3);
    const all = await module.signals(0);
    expect(all.signals.map((s: { body: unknown }) => s.body)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(all.signals[0]).toMatchObject({ time: Math.floor(hub.clock.now() / 1000) });
    expect(all.files).toEqual([]);
    // The reply was lost: the same signals again; then acknowledged up to the second.
    expect(await module.signals(0)).toEqual(all);
    const rest = await module.signals(all.signals[1].seq);
    expect(rest.signals.map((s: { body: unknown }) => s.body)).toEqual([{ n: 3 }]);
    expect((await hub.store.devices.pendingSignals(module.device)).length).toBe(1);
  });

  it("holds a continuous session's `signals` until a signal arrives, and marks the device connected", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true }, why: "continuous" });
    expect((await hub.api("GET", devicePath(module))).json).toBeDefined();
    expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(true);
    const waiting = module.signals(0, 60_000);
    const early = await within(module, waiting, 10_000);
    expect(early.settled).toBe(false);
    const sent = await hub.api("POST", `${devicePath(module)}/signal`, { body: { wake: true } });
    expect(sent.json).toEqual({ connected: true });
    const reply = (await waiting) as AnyReply;
    expect(reply.signals.map((s: { body: unknown }) => s.body)).toEqual([{ wake: true }]);
    expect(hub.services.notifier.listening).toBe(0);
    await module.close("mode changed");
    expect((await hub.store.devices.getDevice(module.device))!.connected).toBe(false);
  });

  it("answers a wait when a notefile changes for the device, with the notefile", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true } });
    const waiting = module.signals(0, 45_000);
    const early = await within(module, waiting, 1_000);
    expect(early.settled).toBe(false);
    await hub.api("POST", `${devicePath(module)}/notes/data.qi`, { body: { go: 1 } });
    expect(await waiting).toEqual({ v: 1, signals: [], files: ["data.qi"], env: NO_ENV });
  });

  it("answers after the wait asked for, and never waits longer than 60 s", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true } });
    const short = module.signals(0, 20_000);
    expect((await within(module, short, 19_999)).settled).toBe(false);
    expect(await within(module, short, 1)).toEqual({
      settled: true,
      value: { v: 1, signals: [], files: [], env: NO_ENV },
    });
    const long = module.signals(0, 3_600_000);
    const beforeMinute = await within(module, long, 59_999);
    expect(beforeMinute.settled).toBe(false);
    const atMinute = await within(module, long, 1);
    expect(atMinute.settled).toBe(true);
    expect(atMinute.value).toEqual({ v: 1, signals: [], files: [], env: NO_ENV });
  });

  it("answers a wait when a variable of the device changes, with the environment", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true } });
    const waiting = module.signals(0, 45_000);
    expect((await within(module, waiting, 1_000)).settled).toBe(false);
    await hub.api("PUT", `${devicePath(module)}/environment_variables`, {
      environment_variables: { a: "1" },
    });
    const reply = (await waiting) as AnyReply;
    expect(reply.env).toMatchObject({ device: { a: "1" }, fleet: {}, project: {} });
  });

  it("answers a wait when its session is closed", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true } });
    const waiting = module.signals(0, 45_000);
    expect((await within(module, waiting, 1_000)).settled).toBe(false);
    await module.close("mode changed");
    // Closed: the wait ends without the clock moving (it would hang here otherwise).
    await waiting;
    expect(hub.services.notifier.listening).toBe(0);
  });

  it("answers at once when signals wait already", async () => {
    const module = await hub.module();
    await module.open({ context: { continuous: true } });
    await hub.services.devices.signal((await hub.store.devices.getDevice(module.device))!, { now: 1 });
    const reply = await module.signals(0, 60_000);
    expect(reply.signals).toHaveLength(1);
  });
});
