import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../../core/json.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { InProcessHub } from "../../../runtime/InProcessHub.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { countStoreTransactions } from "./support/storeTransactions.js";

/**
 * The hub's cost per sync message (docs/sync-protocol.md, "Crash safety"): each message is at most
 * one store transaction, counted on SQLite itself (every BEGIN, and every statement run outside a
 * transaction, which SQLite runs as one of its own), whatever the session does: a first session
 * (hello, a signed open), resumed ones, notes up, notes down, and a check with nothing to send.
 */
describe("every sync message costs at most one store transaction", () => {
  const counter = countStoreTransactions();
  let hub: InProcessHub;
  let sim: SimulatedModule;
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const costs: { type: string; transactions: number }[] = [];

  beforeAll(async () => {
    hub = await InProcessHub.start({ clock });
    // The sync service's own transactions are counted: the smart-fleet rules and the monitors,
    // which read the project's fleets or monitors after each committed batch of events, are other
    // services' (stopped here).
    hub.services.smartFleets.stop();
    hub.services.monitors.stop();
    const sync = hub.services.sync;
    const product = hub.productUid;
    // Once per hub run, not per message: the first message marks the devices an earlier run left
    // connected, and the first event of a project loads its routes. Another module's session
    // has done both before the counted module starts.
    const warm = await SimulatedModule.boot({ clock, seed: "warm", timeKnown: true, hub: hub.connection() });
    await warm.module.request({ req: "hub.sync" });
    await warm.module.sync.idle();
    await warm.close();
    const handle = async (request: unknown, transport: { secure: boolean }): Promise<ProtocolReply> => {
      const before = counter.count();
      const reply = await sync.handle(request, transport);
      costs.push({ type: String((request as JsonObject)["type"]), transactions: counter.count() - before });
      return reply;
    };
    sim = await SimulatedModule.boot({
      clock,
      seed: "tx",
      timeKnown: true,
      hub: { inProcess: { handle }, product },
    });
  });
  afterAll(async () => {
    counter.uninstall();
    await sim.close();
    await hub.close();
  });

  const sync = async () => {
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    const status = await sim.module.request({ req: "hub.sync.status" });
    expect(String(status?.["status"])).toContain("{sync-end}");
  };

  it("counts every message of first, resumed, uploading, downloading and empty sessions", async () => {
    await sim.module.request({ req: "note.add", file: "sensors.qo", body: { n: 1 } });
    await sync();
    for (let i = 0; i < 3; i++) {
      await clock.advance(5 * 60_000);
      await sim.module.request({ req: "note.add", file: "sensors.qo", body: { n: i } });
      await sync();
    }
    await hub.request(
      "POST",
      `/v1/projects/${hub.projectUid}/devices/${sim.module.deviceUid}/notes/data.qi`,
      {
        body: { command: "go" },
      },
    );
    await clock.advance(5 * 60_000);
    await sync();
    await clock.advance(5 * 60_000);
    await sync();
    const types = new Set(costs.map((c) => c.type));
    // Every kind of message a periodic module sends was seen (the firmware offer rides on `open`:
    // a session with no firmware news sends no `firmware` message).
    for (const type of ["hello", "open", "push", "pull", "ack", "close"]) expect(types).toContain(type);
    console.log(JSON.stringify(costs.filter((c) => c.transactions !== 1)));
    expect(costs.filter((c) => c.transactions > 1)).toEqual([]);
    // A hello reads only the product, which the other module's session has read already: it is
    // answered from memory (the connection's ReadCache), with no transaction at all.
    expect(costs.filter((c) => c.transactions === 0 && c.type !== "hello")).toEqual([]);
    expect(costs.filter((c) => c.type === "hello").map((c) => c.transactions)).toEqual([0]);
  });
});
