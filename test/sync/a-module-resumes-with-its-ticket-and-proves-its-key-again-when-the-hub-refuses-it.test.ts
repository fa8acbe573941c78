import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { HubIds } from "../../hub/HubIds.js";
import { TICKET_MS } from "../../hub/sync/SyncService.js";
import type { ProtocolReply } from "../../protocol/messages.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { startHub, type RunningHub } from "../../runtime/startHub.js";

/**
 * The module's end of resumed sessions (docs/sync-protocol.md, "Resumed sessions"): it keeps the
 * hub's ticket in RAM and opens with it (no hello, no signature); when the hub refuses it (expired,
 * or a restarted hub with another key) it proves its key again by itself, in the same sync.
 */

interface Sent {
  readonly type: string;
  readonly signed: boolean;
  readonly ticket: boolean;
  readonly err?: string;
}

describe("a module resumes its sessions with the hub's ticket", () => {
  let dir: string | undefined;
  let hub: RunningHub | undefined;
  let sim: SimulatedModule | undefined;
  afterEach(async () => {
    await sim?.close();
    await hub?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A hub on a file in `dir` (it survives a restart), the module's messages and replies logged. */
  async function world() {
    dir = await mkdtemp(join(tmpdir(), "cardsim-tickets-"));
    const clock = new FakeClock();
    const start = () =>
      startHub({
        dir: dir!,
        listen: "127.0.0.1:0",
        tlsListen: false,
        clock,
        ids: new HubIds(new SeededRandom(5)),
        rateLimits: false,
      });
    hub = await start();
    const sent: Sent[] = [];
    const handle = async (request: unknown, transport: { secure: boolean }): Promise<ProtocolReply> => {
      const r = request as JsonObject;
      const reply = await hub!.services.sync.handle(request, transport);
      sent.push({
        type: String(r["type"]),
        signed: typeof r["signature"] === "string",
        ticket: typeof r["ticket"] === "string",
        ...(reply.err ? { err: reply.err } : {}),
      });
      return reply;
    };
    sim = await SimulatedModule.boot({
      clock,
      seed: "tickets",
      timeKnown: true,
      hub: { inProcess: { handle }, product: hub.credentials.product_uid },
    });
    const sync = async () => {
      sent.length = 0;
      await sim!.module.request({ req: "note.add", file: "sensors.qo", body: { n: 1 } });
      await sim!.module.request({ req: "hub.sync" });
      await sim!.module.sync.idle();
      const status = await sim!.module.request({ req: "hub.sync.status" });
      expect(String(status?.["status"])).toContain("{sync-end}");
      return sent.filter((s) => s.type === "hello" || s.type === "open");
    };
    const restart = async () => {
      await hub!.close();
      hub = await start();
    };
    return { clock, sync, restart };
  }

  it("proves its key once, then opens with the ticket: no hello, no signature", async () => {
    const w = await world();
    expect(await w.sync()).toEqual([
      { type: "hello", signed: false, ticket: false },
      { type: "open", signed: true, ticket: false },
    ]);
    await w.clock.advance(5 * 60_000);
    expect(await w.sync()).toEqual([{ type: "open", signed: false, ticket: true }]);
    await w.clock.advance(5 * 60_000);
    expect(await w.sync()).toEqual([{ type: "open", signed: false, ticket: true }]);
  });

  it("proves its key again by itself once the ticket expired", async () => {
    const w = await world();
    await w.sync();
    await w.clock.advance(TICKET_MS + 60_000);
    // The module knows when its ticket expires, and does not present it.
    expect(await w.sync()).toEqual([
      { type: "hello", signed: false, ticket: false },
      { type: "open", signed: true, ticket: false },
    ]);
    expect(await w.sync()).toEqual([{ type: "open", signed: false, ticket: true }]);
  });

  it("proves its key again when a restarted hub, with a new key, refuses its ticket", async () => {
    const w = await world();
    await w.sync();
    await w.restart();
    const opens = await w.sync();
    expect(opens).toEqual([
      {
        type: "open",
        signed: false,
        ticket: true,
        err: expect.stringMatching(/^\{ticket\} .*another key of the hub/),
      },
      { type: "hello", signed: false, ticket: false },
      { type: "open", signed: true, ticket: false },
    ]);
    expect(await w.sync()).toEqual([{ type: "open", signed: false, ticket: true }]);
  });
});
