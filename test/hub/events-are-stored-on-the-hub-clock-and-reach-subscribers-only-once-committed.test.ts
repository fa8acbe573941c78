import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildHubApp } from "../../hub/HubApp.js";
import type { EventRecord } from "../../hub/store/records.js";
import { TestHub } from "./support/hubFixture.js";
import { TestServices } from "./support/servicesFixture.js";

const DEVICE = "dev:864475040000001";

describe("the events service", () => {
  let t: TestServices;

  beforeEach(async () => {
    t = await TestServices.start();
    await t.registerDevice(DEVICE);
  });

  afterEach(async () => {
    await t.close();
  });

  const newEvent = (n: number) => ({
    projectUid: t.projectUid,
    deviceUid: DEVICE,
    file: "data.qo",
    data: { body: { n } },
  });
  const stored = async () => t.store.telemetry.latestEvents(t.projectUid, DEVICE);

  it("stores an event with a new UID and the hub clock's time, and hands it to every subscriber", async () => {
    const seen = t.collectEvents();
    await t.clock.advance(1500);
    const event = await t.services.events.record(newEvent(1));
    expect(event.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event.received).toBe(t.clock.now() / 1000);
    expect(event.received % 1).toBe(0.5);
    expect(event.whenSec).toBe(Math.floor(event.received));
    expect(event.sessionUid).toBeNull();
    expect(seen).toEqual([event]);
    expect(await stored()).toEqual([event]);
  });

  it("keeps the UID, capture time and session its source gives", async () => {
    const event = await t.services.events.record({
      ...newEvent(1),
      uid: "content-derived",
      whenSec: 1_700_000_000,
      sessionUid: "session-1",
    });
    expect(event).toMatchObject({ uid: "content-derived", whenSec: 1_700_000_000, sessionUid: "session-1" });
    expect(event.received).toBe(t.clock.now() / 1000);
  });

  it("stops telling a subscriber once it unsubscribes, and tells one subscribed twice twice", async () => {
    const told: number[] = [];
    const listener = (e: EventRecord) => void told.push(e.data.body ? 1 : 0);
    const first = t.services.events.subscribe(listener);
    t.services.events.subscribe(listener);
    await t.services.events.record(newEvent(1));
    expect(told).toHaveLength(2);
    first();
    first();
    await t.services.events.record(newEvent(2));
    expect(told).toHaveLength(3);
  });

  it("tells subscribers of events recorded in a transaction only after it committed", async () => {
    const seen = t.collectEvents();
    await t.store.transaction(async () => {
      await t.services.events.record(newEvent(1));
      await t.services.events.record(newEvent(2));
      expect(seen).toEqual([]);
    });
    expect(seen.map((e) => e.data.body)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("tells no subscriber of events recorded in a transaction that rolled back, and stores none", async () => {
    const seen = t.collectEvents();
    await expect(
      t.store.transaction(async () => {
        await t.services.events.record(newEvent(1));
        throw new Error("session failed");
      }),
    ).rejects.toThrow("session failed");
    expect(seen).toEqual([]);
    expect(await stored()).toEqual([]);
  });

  it("tells subscribers only of the events of nested units that were kept", async () => {
    const seen = t.collectEvents();
    await t.store.transaction(async () => {
      await t.services.events.record(newEvent(1));
      await t.store
        .transaction(async () => {
          await t.services.events.record(newEvent(2));
          throw new Error("this batch failed");
        })
        .catch(() => undefined);
      await t.store.transaction(async () => {
        await t.services.events.record(newEvent(3));
      });
    });
    expect(seen.map((e) => e.data.body)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it("keeps recording and telling the others when a subscriber throws or rejects, and reports it", async () => {
    t.services.events.subscribe(() => {
      throw new Error("sync fault");
    });
    t.services.events.subscribe(async () => {
      throw new Error("async fault");
    });
    const seen = t.collectEvents();
    const event = await t.services.events.record(newEvent(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([event]);
    expect(await stored()).toEqual([event]);
    expect(t.listenerErrors.map(({ error, event: e }) => [(error as Error).message, e.uid])).toEqual([
      ["sync fault", event.uid],
      ["async fault", event.uid],
    ]);
  });
});

describe("the services of a hub app", () => {
  it("are one instance for REST and in-process callers: a note added over HTTP reaches a subscriber", async () => {
    const hub = await TestHub.start();
    try {
      const seen: EventRecord[] = [];
      hub.services.events.subscribe((event) => void seen.push(event));
      const device = await hub.device();
      const res = await hub.post(hub.p(`/devices/${device.uid}/notes/data.qi`), { body: { on: true } });
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        deviceUid: device.uid,
        file: "data.qi",
        received: hub.clock.now() / 1000,
        data: { req: "note.add", body: { on: true } },
      });
    } finally {
      await hub.close();
    }
  });

  it("can be built first and handed to the app", async () => {
    const t = await TestServices.start();
    const { app, services } = await buildHubApp({ services: t.services });
    try {
      expect(services).toBe(t.services);
      const res = await app.inject({ method: "GET", url: "/v1/projects" });
      expect(res.statusCode).toBe(401);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
