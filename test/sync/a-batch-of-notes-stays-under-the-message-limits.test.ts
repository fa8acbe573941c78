import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { BATCH_LIMITS } from "../../protocol/messages.js";
import { SyncWorld, TRANSPORTS } from "./support/syncWorld.js";

describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a module sends its queue in messages of at most 100 notes and 256 KB of notes, and every note arrives once", async () => {
    world = await SyncWorld.start(transport);
    const sync = world.services.sync;
    const handle = sync.handle.bind(sync);
    const pushes: JsonObject[][] = [];
    sync.handle = (message, how) => {
      const m = message as JsonObject;
      if (m["type"] === "push" && m["file"] === "mixed.qo") pushes.push(m["notes"] as JsonObject[]);
      return handle(message, how);
    };
    const sim = await world.module();
    // Small notes (counted by an upper bound of their size), then large ones: the batch that
    // holds both switches to exact sizes part-way.
    for (let i = 0; i < 130; i++)
      await world.req(sim, { req: "note.add", file: "mixed.qo", body: { n: i, v: 0.1 * i } });
    for (let i = 0; i < 12; i++)
      await world.req(sim, {
        req: "note.add",
        file: "mixed.qo",
        body: { n: 130 + i, blob: "é".repeat(30_000) },
      });
    await world.sync(sim);
    for (const notes of pushes) {
      expect(notes.length).toBeLessThanOrEqual(BATCH_LIMITS.notes);
      expect(JSON.stringify(notes).length).toBeLessThanOrEqual(BATCH_LIMITS.bytes);
    }
    // Full messages: a batch is cut only where the next note would not fit (a ninth large one).
    expect(pushes.map((notes) => notes.length)).toEqual([100, 30 + 8, 4]);
    const events = await world.events(sim);
    const seen = events.filter((e) => e.file === "mixed.qo").map((e) => (e.data["body"] as JsonObject)["n"]);
    expect([...seen].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 142 }, (_, i) => i));
    expect(sim.module.notebox.file("mixed.qo")?.notes.size ?? 0).toBe(0);
  });
});
