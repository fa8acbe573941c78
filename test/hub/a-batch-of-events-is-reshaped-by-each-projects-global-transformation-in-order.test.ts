import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NewEvent } from "../../hub/events/EventService.js";
import { Integrations } from "../../hub/integrations/Integrations.js";
import { SqliteHubStore } from "../../hub/store/sqlite/SqliteHubStore.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { PROJECT, seedProject, T0 } from "./store/contract/support/seed.js";

const OTHER = "app:00000000-0000-4000-8000-00000000abcd";

const event = (projectUid: string, n: number): NewEvent => ({
  projectUid,
  deviceUid: "dev:1",
  file: "sensors.qo",
  data: { device: "dev:1", file: "sensors.qo", body: { temp: n } },
  dataText: `{"device":"dev:1","file":"sensors.qo","body":{"temp":${n}}}`,
  uid: `uid-${projectUid.slice(-4)}-${n}`,
  whenSec: 1000 + n,
});

describe("a batch of events (a synced batch of notes)", () => {
  let store: SqliteHubStore;
  let integrations: Integrations;
  let reads: () => string[];
  let clock: FakeClock;

  beforeEach(async () => {
    store = new SqliteHubStore(":memory:");
    await seedProject(store);
    const spy = vi.spyOn(store.integrations, "getGlobalTransform");
    reads = () => spy.mock.calls.map(([projectUid]) => projectUid);
    clock = new FakeClock(T0);
    integrations = new Integrations(store, clock, new Uint8Array(32));
  });

  afterEach(async () => {
    await integrations.stop();
    await store.close();
  });

  it("is given back as it came, the setting read once per project, when no transformation applies", async () => {
    const batch = [event(PROJECT, 1), event(OTHER, 2), event(PROJECT, 3), event(OTHER, 4)];
    const out = await integrations.transformEvents(batch);
    expect(out).toBe(batch);
    expect(reads()).toEqual([PROJECT, OTHER]);
  });

  it("comes out in its order, each event of a project with a transformation reshaped, the others untouched", async () => {
    await store.integrations.setGlobalTransform(
      PROJECT,
      { transform: '{"temp_f": body.temp * 9 / 5 + 32, "file": "forged.qo"}', enabled: true },
      T0,
    );
    const batch = [event(PROJECT, 10), event(OTHER, 20), event(PROJECT, 30)];
    const out = await integrations.transformEvents(batch);
    expect(reads()).toEqual([PROJECT, OTHER]);
    expect(out.map((e) => e.uid)).toEqual(batch.map((e) => e.uid));
    // The hub's own members stay (`file` cannot be forged); the text written before is dropped.
    expect(out[0]).toMatchObject({ data: { temp_f: 50, device: "dev:1", file: "sensors.qo" } });
    expect(out[0]!.dataText).toBeUndefined();
    expect(out[2]!.data).toMatchObject({ temp_f: 86 });
    expect(out[1]).toBe(batch[1]);
    // One event at a time gives the same.
    expect(await integrations.transformEvent(batch[2]!)).toEqual(out[2]);
  });

  it("is given back at once, no promise made, while the settings read within the last second say none applies", async () => {
    const batch = [event(PROJECT, 1), event(OTHER, 2)];
    // Nothing read yet: the settings are read (a promise).
    const first = integrations.transformEvents(batch);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(batch);
    await clock.advance(999);
    expect(integrations.transformEvents(batch)).toBe(batch);
    expect(integrations.transformEvents([event(PROJECT, 3)])).toBeInstanceOf(Array);
    expect(reads()).toEqual([PROJECT, OTHER]);
    // A second on, they are read again.
    await clock.advance(1);
    const later = integrations.transformEvents(batch);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(batch);
    expect(reads()).toEqual([PROJECT, OTHER, PROJECT, OTHER]);
    // A transformation set by this process is read at once and applies.
    await store.integrations.setGlobalTransform(
      PROJECT,
      { transform: '{"n": body.temp}', enabled: true },
      T0,
    );
    integrations.globalTransformChanged(PROJECT);
    const reshaped = integrations.transformEvents([event(PROJECT, 7)]);
    expect(reshaped).toBeInstanceOf(Promise);
    expect((await reshaped)[0]!.data).toMatchObject({ n: 7 });
  });
});
