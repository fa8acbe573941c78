import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { countStoreTransactions, runsOf, statementsSince } from "./support/storeTransactions.js";

/**
 * The hub's cost per synced note (issue 26: a sync as close as it can be to the raw inserts of its
 * events, bench/sync.ts): a `push` of queue notes runs, counted on SQLite, one INSERT of an event
 * per note and the transaction around them, and no other statement, neither per note (no lookup of
 * a stored event or of the project's key) nor per batch (no savepoint; the device is read by the
 * session's first push only): what a sync costs beyond the ceiling's inserts of the same rows is
 * the hub's work in memory. A push handled again (its reply lost on the way) runs the same
 * statements and stores nothing twice.
 */
describe("a pushed batch of queue notes", () => {
  const counter = countStoreTransactions();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  /** Each push message handled: its notefile, its notes, the statements it ran (by text), its reply. */
  const pushes: { file: unknown; notes: number; ran: Map<string, number>; merged: unknown }[] = [];
  /** Set: the next push of sensors.qo is handled twice, as after a reply the module never got. */
  let repeatNext = false;

  beforeAll(async () => {
    hub = await InProcessHub.start({ clock });
    // The sync service's statements are counted, not the smart-fleet rules' or the monitors'.
    hub.services.smartFleets.stop();
    hub.services.monitors.stop();
    const sync = hub.services.sync;
    const handle = async (request: unknown, transport: { secure: boolean }): Promise<ProtocolReply> => {
      const message = request as JsonObject;
      if (message["type"] !== "push") return sync.handle(request, transport);
      const again = repeatNext && message["file"] === "sensors.qo" ? structuredClone(message) : undefined;
      if (again) repeatNext = false;
      let reply = await counted(message, transport);
      if (again) reply = await counted(again, transport);
      return reply;
    };
    const counted = async (message: JsonObject, transport: { secure: boolean }) => {
      const before = counter.statements();
      const notes = (message["notes"] as unknown[]).length;
      const reply = await sync.handle(message, transport);
      const ran = statementsSince(before, counter.statements());
      pushes.push({ file: message["file"], notes, ran, merged: (reply as JsonObject)["merged"] });
      return reply;
    };
    sim = await SimulatedModule.boot({
      clock,
      seed: "per-note",
      timeKnown: true,
      hub: { inProcess: { handle }, product: hub.productUid },
    });
    await sync_();
  });
  afterAll(async () => {
    counter.uninstall();
    await sim.close();
    await hub.close();
  });

  async function sync_(): Promise<void> {
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    const status = await sim.module.request({ req: "hub.sync.status" });
    expect(String(status?.["status"])).toContain("{sync-end}");
  }

  it("runs one insert per note, one BEGIN and one COMMIT, and nothing else but the session's first read of its device", async () => {
    pushes.length = 0;
    repeatNext = true;
    for (let i = 0; i < 250; i++)
      await sim.module.request({ req: "note.add", file: "sensors.qo", body: { i, site: "a" } });
    await sync_();
    const full = pushes.filter((p) => p.file === "sensors.qo");
    // Batches of several notes (the first batch rides on the open); the first push handled twice,
    // storing its notes the first time only.
    expect(full.length).toBeGreaterThanOrEqual(3);
    expect(full[0]!.notes).toBeGreaterThan(1);
    expect(full[1]!.notes).toBe(full[0]!.notes);
    expect(full.map((p) => p.merged)).toEqual(full.map((p, i) => (i === 1 ? 0 : p.notes)));
    full.forEach((push, i) => {
      const all = [...push.ran.values()].reduce((sum, n) => sum + n, 0);
      const detail = JSON.stringify(Object.fromEntries(push.ran), null, 1);
      expect(runsOf(push.ran, "INSERT INTO events"), detail).toBe(push.notes);
      expect(runsOf(push.ran, "BEGIN"), detail).toBe(1);
      expect(runsOf(push.ran, "COMMIT"), detail).toBe(1);
      // The session's device, read by its first push after the open wrote it (then kept by the
      // connection's read cache): once a session, never a note.
      const device = runsOf(push.ran, "SELECT doc, tracker_session FROM devices");
      expect(device, detail).toBe(i === 0 ? 1 : 0);
      expect(all, detail).toBe(push.notes + 2 + device);
    });
    const events = await hub.store.telemetry.listEvents(
      hub.projectUid,
      { files: ["sensors.qo"] },
      { by: "captured", descending: false },
      { limit: 1000, offset: 0 },
    );
    expect(events.items.map((e) => e.data["body"])).toEqual(
      Array.from({ length: 250 }, (_, i) => ({ i, site: "a" })),
    );
  });
});
