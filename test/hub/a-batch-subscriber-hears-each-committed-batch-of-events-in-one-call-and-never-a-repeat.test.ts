import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventRecord } from "../../hub/store/records.js";
import { TestServices } from "./support/servicesFixture.js";

const DEVICE = "dev:864475040000002";

describe("a subscriber told a batch at a time", () => {
  let t: TestServices;

  beforeEach(async () => {
    t = await TestServices.start();
    await t.registerDevice(DEVICE);
  });

  afterEach(async () => {
    await t.close();
  });

  const synced = (n: number) => ({
    projectUid: t.projectUid,
    deviceUid: DEVICE,
    file: "data.qo",
    uid: `content-${n}`,
    data: { body: { n } },
  });

  it("hears the events one store call stored in one call, in order, and a repeat never", async () => {
    const batches: string[][] = [];
    const each: string[] = [];
    t.services.events.subscribeBatch((events) => void batches.push(events.map((e) => e.uid)));
    t.services.events.subscribe((e) => void each.push(e.uid));
    await t.services.events.recordOnce([synced(1), synced(2), synced(3)]);
    // Uploaded again with one new note: only the new one is told, in a batch of its own.
    await t.services.events.recordOnce([synced(2), synced(4), synced(3)]);
    await t.services.events.recordOnce([synced(1)]);
    expect(batches).toEqual([["content-1", "content-2", "content-3"], ["content-4"]]);
    expect(each).toEqual(["content-1", "content-2", "content-3", "content-4"]);
  });

  it("hears a transaction's batches only once it committed, and none of one rolled back", async () => {
    const batches: number[] = [];
    t.services.events.subscribeBatch((events) => void batches.push(events.length));
    await t.store.transaction(async () => {
      await t.services.events.recordOnce([synced(1), synced(2)]);
      await t.services.events.recordOnce([synced(3)]);
      expect(batches).toEqual([]);
    });
    await t.store
      .transaction(async () => {
        await t.services.events.recordOnce([synced(4), synced(5)]);
        throw new Error("session failed");
      })
      .catch(() => undefined);
    expect(batches).toEqual([2, 1]);
  });

  it("that throws or rejects is reported with the batch's first event and keeps nobody else from hearing", async () => {
    t.services.events.subscribeBatch(() => {
      throw new Error("sync fault");
    });
    t.services.events.subscribeBatch(async () => {
      throw new Error("async fault");
    });
    const heard: EventRecord[][] = [];
    t.services.events.subscribeBatch((events) => void heard.push([...events]));
    const stored = await t.services.events.recordOnce([synced(1), synced(2)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([stored]);
    expect(t.listenerErrors.map(({ error, event }) => [(error as Error).message, event.uid])).toEqual([
      ["sync fault", "content-1"],
      ["async fault", "content-1"],
    ]);
  });

  it("is no longer told once it unsubscribed", async () => {
    const batches: number[] = [];
    const stop = t.services.events.subscribeBatch((events) => void batches.push(events.length));
    await t.services.events.recordOnce([synced(1)]);
    stop();
    await t.services.events.recordOnce([synced(2)]);
    expect(batches).toEqual([1]);
  });
});
