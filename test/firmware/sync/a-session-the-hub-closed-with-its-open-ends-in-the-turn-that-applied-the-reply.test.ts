import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import type { KvOp } from "../../../firmware/storage/KvStore.js";
import { MemoryKvStore } from "../../../firmware/storage/MemoryKvStore.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";

/**
 * A session the hub closes with its open (docs/sync-protocol.md, "Folded messages") has nothing
 * left but quiet steps: its sync state and usage are kept in the turn that applies the open's
 * reply, one commit of the module's flash, not in a turn of their own after it. A session that
 * goes on past its open still ends in its own turn. Either way the energy counters charged for
 * the session are kept in the commit that keeps its end, not in a turn of their own after it.
 */

/** The records each commit wrote (configuration records by name, others by kind). */
class RecordingStore extends MemoryKvStore {
  readonly written: string[][] = [];
  override async commit(ops: readonly KvOp[]): Promise<void> {
    const name = (key: string) => (key.startsWith("c\u001f") ? key.slice(2) : key.split("\u001f")[0]!);
    this.written.push(ops.map((op) => name("key" in op ? op.key : op.prefix)));
    return super.commit(ops);
  }
}
describe("a session the hub closed with its open", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  let store: RecordingStore;

  beforeEach(async () => {
    hub = await InProcessHub.start({ clock });
    store = new RecordingStore();
    sim = await SimulatedModule.boot({
      clock,
      seed: "ended-with-open",
      timeKnown: true,
      hub: hub.connection(),
      flash: { store, images: new MemoryFlashFs() },
    });
    // The first session proves the key; the next ones resume with the ticket.
    await sync();
    await clock.advance(60_000);
  });
  afterEach(async () => {
    await sim.close();
    await hub.close();
  });

  const req = async (request: JsonObject) => (await sim.module.request(request))!;
  async function sync(): Promise<void> {
    await req({ req: "hub.sync" });
    await sim.module.sync.idle();
  }
  /** The commits of one sync, and its usage and status after. */
  async function synced(): Promise<{ commits: string[][]; usage: JsonObject; status: JsonObject }> {
    const before = store.written.length;
    await sync();
    return {
      commits: store.written.slice(before),
      usage: await req({ req: "card.usage.get" }),
      status: await req({ req: "hub.sync.status" }),
    };
  }

  it("keeps its sync state and usage in the commit that applied the reply", async () => {
    const usage = await req({ req: "card.usage.get" });
    await req({ req: "note.add", file: "sensors.qo", body: { temp: 21 } });
    const session = await synced();
    // The open's reply applied (the note sent, the tracker moved) with the session's end: one commit.
    expect(session.commits).toHaveLength(1);
    expect(session.commits[0]).toEqual(
      expect.arrayContaining(["t", "n", "sync", "sync.usage", "card.energy"]),
    );
    expect(String(session.status["status"])).toContain("{sync-end}");
    expect(session.status["completed"]).toBeGreaterThanOrEqual(0);
    expect(session.usage["sessions_secure"]).toBe(Number(usage["sessions_secure"] ?? 0) + 1);
    expect(session.usage["notes_sent"]).toBe(Number(usage["notes_sent"] ?? 0) + 1);
    expect(Number(session.usage["bytes_sent"])).toBeGreaterThan(Number(usage["bytes_sent"] ?? 0));
    expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(0);
  });

  it("ends in a turn of its own when the session goes on past its open", async () => {
    // A change of the hub's for the module: the hub answers the open without closing it.
    const device = sim.module.deviceUid;
    const put = await hub.request("POST", `/v1/projects/${hub.projectUid}/devices/${device}/notes/data.qi`, {
      body: { n: 1 },
    });
    expect(put.status).toBe(200);
    const usage = await req({ req: "card.usage.get" });
    const session = await synced();
    expect(session.commits.length).toBeGreaterThan(1);
    expect(session.commits.at(-1)).toEqual(expect.arrayContaining(["sync", "sync.usage", "card.energy"]));
    expect(session.commits.filter((records) => records.includes("card.energy"))).toHaveLength(1);
    expect(String(session.status["status"])).toContain("{sync-end}");
    expect(session.usage["sessions_secure"]).toBe(Number(usage["sessions_secure"] ?? 0) + 1);
    expect(session.usage["notes_received"]).toBe(Number(usage["notes_received"] ?? 0) + 1);
  });
});
