import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { countStoreTransactions, runsOf, statementsSince } from "./support/storeTransactions.js";

/**
 * The fixed cost of a session on the hub (issue 26: sessions that cost little more than their
 * writes), counted on SQLite: a resumed periodic session carrying one note is three messages
 * (`open`, `push`, `close`: the firmware offer rides on `open`) and at most 9 statements, of
 * which one writes the device (its row and its document together: a close that changes nothing
 * writes nothing) and none reads configuration no one changed since the last session (product,
 * global transform, environment variables, DFU requests, and what the hub holds for the device
 * in notefiles: answered from memory until their table is written, `ReadCache`). It was 44 statements in four messages, the device written twice with
 * four statements each; 22 before the open's three reads of what to tell the module became one and
 * the device's write stopped reading its row again; 16 before the tracker session came with the
 * device's row; 15 before the configuration reads were kept across sessions.
 */
describe("a resumed session with one note", () => {
  const counter = countStoreTransactions();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  const messages: string[] = [];

  beforeAll(async () => {
    hub = await InProcessHub.start({ clock });
    // The sync service's statements are counted, not the smart-fleet rules' or the monitors'.
    hub.services.smartFleets.stop();
    hub.services.monitors.stop();
    const handle = async (request: unknown, transport: { secure: boolean }): Promise<ProtocolReply> => {
      messages.push(String((request as JsonObject)["type"]));
      return hub.services.sync.handle(request, transport);
    };
    sim = await SimulatedModule.boot({
      clock,
      seed: "statements",
      timeKnown: true,
      hub: { inProcess: { handle }, product: hub.productUid },
    });
  });
  afterAll(async () => {
    counter.uninstall();
    await sim.close();
    await hub.close();
  });

  const session = async (i: number) => {
    await sim.module.request({ req: "note.add", file: "sensors.qo", body: { i } });
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    const status = await sim.module.request({ req: "hub.sync.status" });
    expect(String(status?.["status"])).toContain("{sync-end}");
    await clock.advance(5 * 60_000);
  };

  it("is one message, one transaction and at most 9 statements, one of them writing the device", async () => {
    // The first session proves the key; the next ones resume with the ticket.
    for (let i = 0; i < 3; i++) await session(i);
    messages.length = 0;
    const before = counter.statements();
    await session(3);
    const ran = statementsSince(before, counter.statements());
    const count = (prefix: string) => runsOf(ran, prefix);
    expect(messages).toEqual(["open"]);
    expect(count("BEGIN")).toBe(1);
    // Its row and document together, over the record the open read (no read of it again).
    expect(count("INSERT INTO devices") + count("UPDATE devices SET product_uid = ?")).toBe(1);
    expect(count("UPDATE devices SET doc")).toBe(0);
    // Read once: the firmware offer of nothing takes the open's record and variables, in no
    // nested unit of its own.
    expect(count("SELECT doc, tracker_session FROM devices")).toBe(1);
    // The tracker session comes with the device's row, not in a statement of its own.
    expect(count("SELECT tracker_session")).toBe(0);
    expect(count("SAVEPOINT")).toBe(0);
    // Configuration unchanged since the last session: no statement reads it again.
    for (const table of ["env_vars", "products", "global_transforms", "dfu_requests"])
      expect(count(`SELECT * FROM ${table}`), table).toBe(0);
    expect(count("SELECT 'deleted' AS kind")).toBe(0);
    const total = [...ran.values()].reduce((sum, n) => sum + n, 0);
    expect(total, JSON.stringify(Object.fromEntries(ran), null, 1)).toBeLessThanOrEqual(9);
  });
});
