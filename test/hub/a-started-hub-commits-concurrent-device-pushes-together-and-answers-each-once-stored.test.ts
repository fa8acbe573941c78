import { mkdtemp, rm } from "node:fs/promises";
import { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SeededRandom } from "../../core/SeededRandom.js";
import { HubIds } from "../../hub/HubIds.js";
import type { ProtocolReply } from "../../protocol/messages.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { startHub, type RunningHub } from "../../runtime/startHub.js";
import { deviceNote, ScriptedModule } from "./sync/support/ScriptedModule.js";
import { countStoreTransactions, runsOf, statementsSince } from "./sync/support/storeTransactions.js";

// `cardsim hub` (startHub on a SQLite file) commits the store transactions of one event-loop turn
// together (docs/hub.md): the pushes of two modules in flight at once are each stored exactly
// once, and neither is answered before the COMMIT that stores its notes.

/** The header naming the module a test request comes from (the hub ignores it). */
const DEVICE_HEADER = "x-test-device";

describe("a started hub's group commits", () => {
  const counter = countStoreTransactions();
  let dir: string;
  let hub: RunningHub;
  /** Another connection to the hub's file: it reads only what is committed. */
  let reader: Database.Database;
  /** Each device/v1 answer as it was written: whose, and how many of its notes were stored by then. */
  const answers: { device: string; stored: number }[] = [];
  const end = ServerResponse.prototype.end;

  const storedNotes = (device: string): number =>
    (
      reader
        .prepare("SELECT count(*) AS n FROM events WHERE device_uid = ? AND file = 'data.qo'")
        .get(device) as { n: number }
    ).n;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-group-"));
    hub = await startHub({
      dir,
      listen: "127.0.0.1:0",
      tlsListen: false,
      clock: new FakeClock(),
      ids: new HubIds(new SeededRandom(26)),
      rateLimits: false,
      log: false,
    });
    reader = new Database(join(dir, "hub.db"), { readonly: true });
    ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
      const device = this.req?.headers[DEVICE_HEADER];
      if (typeof device === "string") answers.push({ device, stored: storedNotes(device) });
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof end;
  });
  afterAll(async () => {
    ServerResponse.prototype.end = end;
    counter.uninstall();
    reader?.close();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const module = (n: number) => {
    const device = `dev:86447500000000${n}`;
    return ScriptedModule.create(
      async (message) => {
        const res = await fetch(`${hub.url}/device/v1`, {
          method: "POST",
          headers: { "content-type": "application/json", [DEVICE_HEADER]: device },
          body: JSON.stringify(message),
        });
        expect(res.status).toBe(200);
        return JSON.parse(await res.text()) as ProtocolReply;
      },
      { device, product: hub.credentials.product_uid },
    );
  };

  it("stores two modules' concurrent pushes once each, answering each after the commit that stored it", async () => {
    const modules = [await module(1), await module(2)];
    for (const m of modules) expect((await m.open()).err).toBeUndefined();
    answers.length = 0;
    const before = counter.statements();
    const notes = (m: number) =>
      Array.from({ length: 5 }, (_, i) => deviceNote(`n${m}-${i}`, { change: i + 1, body: { m, i } }));
    const replies = await Promise.all(modules.map((m, i) => m.push("data.qo", notes(i))));
    const ran = statementsSince(before, counter.statements());
    for (const reply of replies) expect(reply.err).toBeUndefined();
    // Each push's answer was written once its five notes were committed: another connection read them.
    expect(answers.map((a) => a.stored)).toEqual([5, 5]);
    expect(answers.map((a) => a.device).sort()).toEqual(modules.map((m) => m.device).sort());
    // Both pushes' inserts, in at most one COMMIT each (one, when the hub read both in one turn).
    expect(runsOf(ran, "INSERT INTO events")).toBe(10);
    expect(runsOf(ran, "COMMIT")).toBeGreaterThanOrEqual(1);
    expect(runsOf(ran, "COMMIT")).toBeLessThanOrEqual(2);
    // The same pushes again (their replies lost on the way): nothing is stored twice.
    const again = await Promise.all(modules.map((m, i) => m.push("data.qo", notes(i))));
    for (const reply of again) expect(reply.err).toBeUndefined();
    for (const m of modules) expect(storedNotes(m.device)).toBe(5);
  });
});
