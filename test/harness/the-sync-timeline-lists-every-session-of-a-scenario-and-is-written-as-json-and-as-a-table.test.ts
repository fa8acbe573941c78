import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { Scenario } from "../../harness/Scenario.js";
import { SyncTimeline } from "../../harness/SyncTimeline.js";

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

describe("the sync timeline", () => {
  let sc: Scenario | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function req(request: JsonObject): Promise<JsonObject> {
    const reply = await sc!.run(sc!.module.request(request));
    if (!reply || typeof reply["err"] === "string")
      throw new Error(`${String(request["req"])}: ${JSON.stringify(reply)}`);
    return reply;
  }

  /** What the module counted it sent and received so far (card.usage.get, total). */
  async function usage(): Promise<{ up: number; down: number }> {
    const total = await req({ req: "card.usage.get", mode: "total" });
    return { up: Number(total["bytes_sent"] ?? 0), down: Number(total["bytes_received"] ?? 0) };
  }

  const counted: { up: number; down: number }[] = [];

  /** Asks for a sync, lets the scenario run until the engine is idle, notes the bytes it counted. */
  async function sync(): Promise<void> {
    const before = await usage();
    await req({ req: "hub.sync" });
    await sc!.run(sc!.module.sync.idle(), { timeout: 10 * MINUTE });
    const after = await usage();
    counted.push({ up: after.up - before.up, down: after.down - before.down });
  }

  it("lists explicit syncs, one failed in an outage, and one bringing a note from the hub, with the traffic the module counted", async () => {
    sc = await Scenario.start({ seed: "timeline", hub: "in-process", timeKnown: true, clockStart: START });
    const hub = sc.hub!;
    // Two readings, then a sync.
    await req({ req: "note.add", file: "sensors.qo", body: { temp: 21.5 } });
    await req({ req: "note.add", file: "sensors.qo", body: { temp: 21.7 } });
    await sync();
    // An hour later the network is gone for half an hour; a sync then fails on the link.
    await sc.advance(60 * MINUTE - (sc.clock.now() - START));
    sc.radio.conditions.outage("registration", 30 * MINUTE);
    await req({ req: "note.add", file: "sensors.qo", body: { temp: 22.1 } });
    await sync();
    // At two hours, in coverage again, the note waiting since the outage goes up.
    await sc.advance(2 * 60 * MINUTE - (sc.clock.now() - START));
    await sync();
    // At three hours the hub has a command for the module; the next sync brings it down.
    await sc.advance(3 * 60 * MINUTE - (sc.clock.now() - START));
    await hub.addQiNote(sc.module.deviceUid, "commands.qi", { body: { valve: "open" } });
    await sync();
    expect(await req({ req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { valve: "open" },
    });

    // Every session, exactly: when it started and ended (no radio latency here: at once), why,
    // how it ended, and the bytes each way, which are the ones the module's usage counters took.
    expect(counted.map((c) => c.up > 0 && c.down > 0)).toEqual([true, false, true, true]);
    const session = (
      minutes: number,
      i: number,
      outcome: "ok" | "link",
      notesUp: number,
      notesDown: number,
    ) => ({
      kind: "session",
      start: START + minutes * MINUTE,
      end: START + minutes * MINUTE,
      trigger: "explicit",
      outcome,
      ...(outcome === "link" ? { error: "no network {network}" } : {}),
      bytesUp: counted[i]!.up,
      bytesDown: counted[i]!.down,
      notesUp,
      notesDown,
    });
    expect(sc.timeline.sessions).toEqual([
      session(0, 0, "ok", 2, 0),
      session(60, 1, "link", 0, 0),
      session(120, 2, "ok", 1, 0),
      session(180, 3, "ok", 0, 1),
    ]);
    // The failed connection put the module in a penalty box for 15 minutes (the schedule's
    // default); it was open again long before the next sync.
    expect(sc.timeline.entries.filter((e) => e.kind !== "session")).toEqual([
      {
        kind: "penalty",
        start: START + 60 * MINUTE,
        end: START + 75 * MINUTE,
        detail: "registration failure 1",
      },
    ]);
    // The hub saw the three sessions that reached it.
    const { events } = await hub.getEvents({ deviceUID: sc.module.deviceUid, files: "_session.qo" });
    expect(events).toHaveLength(6);
  });

  it("follows the module across a power cycle and is written as JSON, read back, and as a fixed-width table on the scenario's time", async () => {
    sc = await Scenario.start({ seed: "timeline-2", hub: "in-process", timeKnown: true, clockStart: START });
    await req({ req: "note.add", file: "sensors.qo", body: { n: 1 } });
    await sync();
    await sc.advance(5 * MINUTE);
    sc.radio.set(false, 10 * MINUTE);
    await sync();
    // After a power cycle the timeline follows the module that booted.
    await sc.advance(15 * MINUTE);
    await sc.world.powerCycle();
    await sync();
    // Entries of other kinds share the timeline (the penalty boxes the schedule opens are there).
    sc.timeline.record({
      kind: "penalty",
      start: sc.clock.now(),
      end: sc.clock.now() + 15 * MINUTE,
      detail: "after a failed session",
    });

    dir = mkdtempSync(join(tmpdir(), "cardsim-timeline-"));
    sc.timeline.write(join(dir, "timeline.json"), "json");
    sc.timeline.write(join(dir, "timeline.txt"), "table");
    const json = readFileSync(join(dir, "timeline.json"), "utf8");
    const back = SyncTimeline.fromJSON(json);
    expect(back.entries).toEqual(sc.timeline.entries);
    expect(back.toJSON()).toEqual(JSON.parse(json));
    expect(back.entries.map((e) => e.kind)).toEqual(["session", "session", "penalty", "session", "penalty"]);

    const table = readFileSync(join(dir, "timeline.txt"), "utf8");
    expect(table).toBe(sc.timeline.table());
    const lines = table.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^time +trigger +duration +bytes up +bytes down +notes up +notes down +outcome$/,
    );
    expect(lines.slice(2).map((l) => l.slice(0, 32).trimEnd())).toEqual([
      "2026-01-01T00:00:00Z  explicit",
      "2026-01-01T00:05:00Z  explicit",
      "2026-01-01T00:05:00Z  penalty",
      "2026-01-01T00:20:00Z  explicit",
      "2026-01-01T00:20:00Z  penalty",
    ]);
    expect(lines[2]).toMatch(/ {2}ok$/);
    expect(lines[3]).toMatch(/ {2}link: no network \{network\}$/);
    expect(lines[4]).toMatch(/ 15\.0 min  +registration failure 1$/);
    expect(lines[5]).toMatch(/ {2}ok$/);
    expect(lines[6]).toMatch(/ 15\.0 min  +after a failed session$/);
    // The columns line up: every number column ends where its header ends.
    const header = lines[0]!;
    for (const column of ["duration", "bytes up", "bytes down", "notes up", "notes down"]) {
      const end = header.indexOf(column) + column.length;
      for (const line of lines.slice(2, 4)) expect(line[end - 1]).toMatch(/\S/);
    }
  });
});
