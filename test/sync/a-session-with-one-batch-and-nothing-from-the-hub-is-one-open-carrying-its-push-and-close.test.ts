import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import type { SimHubLink } from "../../firmware/radio/SimHubLink.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { InProcessHub } from "../../runtime/InProcessHub.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { recordedModule, type Exchange } from "./support/recordedModule.js";

/**
 * Folded messages (docs/sync-protocol.md, "Folded messages"): the `open` carries the module's first
 * batch (`push`) and, when nothing else would follow it, the session's `close`. The hub merges the
 * batch in the open's transaction and closes the session with it when it has nothing for the
 * module (no notefile changes, signals, deletions, reset or image to take), so the common session
 * is one message; else the session goes on as before. A hub before it ignores both fields and the
 * module pushes and closes as it always did. Every note is one event either way.
 */
describe("a session with one batch and nothing from the hub", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let hub: InProcessHub;
  let sim: SimulatedModule;
  let sync: () => Promise<Exchange[]>;
  /** Set to answer as a hub before the folds (it ignores `push` and `close` in an open). */
  let olderHub: boolean;

  beforeEach(async () => {
    hub = await InProcessHub.start({ clock });
    olderHub = false;
    const older = (message: JsonObject): JsonObject => {
      if (!olderHub || message["type"] !== "open") return message;
      const { push: _push, close: _close, ...rest } = message;
      return rest;
    };
    ({ sim, sync } = await recordedModule({ hub, clock, seed: "folds", alter: { request: older } }));
    // The first session proves the key; the next ones resume with the ticket.
    await sync();
    await clock.advance(60_000);
  });
  afterEach(async () => {
    await sim.close();
    await hub.close();
  });

  const types = (exchanges: Exchange[]) => exchanges.map((e) => e.request["type"]);
  const add = (file: string, body: JsonObject) => sim.module.request({ req: "note.add", file, body });
  async function events(): Promise<JsonObject[]> {
    const listed = await hub.request("GET", `/v1/projects/${hub.projectUid}/events`, undefined, {
      query: { pageSize: "1000" },
    });
    return (listed.body as { events: JsonObject[] }).events;
  }
  const notes = async (file: string) => (await events()).filter((e) => e["file"] === file);
  const bytes = (o: unknown) => Buffer.byteLength(JSON.stringify(o));

  it("is one open that the hub answers pushed and closed, with the usage of the open both ways", async () => {
    await add("sensors.qo", { temp: 21 });
    const session = await sync();
    expect(types(session)).toEqual(["open"]);
    const [open] = session;
    expect(open!.request["push"]).toMatchObject({
      file: "sensors.qo",
      after: 0,
      notes: [{ body: { temp: 21 } }],
    });
    expect(open!.request["close"]).toMatchObject({ why: "sync complete", pull: true });
    // The open's members in the order it has always sent them (what the radio's bytes are of).
    expect(Object.keys(open!.request)).toEqual([
      "firmware_offer",
      "v",
      "type",
      "device",
      "product",
      "why",
      "tracker",
      "context",
      "push",
      "close",
      "ticket",
    ]);
    expect(open!.reply).toMatchObject({ pushed: { merged: 1 }, closed: true });
    // The note is an event once, gone from the module, and the session ended with its usage.
    expect(await notes("sensors.qo")).toHaveLength(1);
    const left = await sim.module.request({ req: "file.changes", files: ["sensors.qo"] });
    expect(left?.["total"] ?? 0).toBe(0);
    const end = (await notes("_session.qo")).find(
      (e) => e["req"] === "session.end" && e["session"] === open!.reply["session"],
    )!;
    expect((end["body"] as JsonObject)["usage"]).toEqual({
      bytes_sent: bytes(open!.request),
      bytes_received: bytes(open!.reply),
      notes_sent: 1,
      notes_received: 0,
    });
    const sessions = await hub.request(
      "GET",
      `/v1/projects/${hub.projectUid}/devices/${sim.module.deviceUid}/sessions`,
    );
    const listed = (sessions.body as { sessions: JsonObject[] }).sessions;
    const record = listed.find((r) => r["session"] === open!.reply["session"])!;
    expect(record["session_ended"]).toBeTypeOf("number");
    expect(record["why_session_closed"]).toBe("sync complete");
    // Nothing of the session is left open on the hub.
    expect(hub.services.sync.openSessions).toBe(0);
  });

  it("stays open when the hub has something for the module: the push taken, then the pull and the close", async () => {
    const device = sim.module.deviceUid;
    const put = await hub.request("POST", `/v1/projects/${hub.projectUid}/devices/${device}/notes/data.qi`, {
      body: { hello: "module" },
    });
    expect(put.status).toBe(200);
    await add("sensors.qo", { temp: 22 });
    const session = await sync();
    expect(types(session)).toEqual(["open", "pull", "ack", "close"]);
    expect(session[0]!.reply).toMatchObject({ pushed: { merged: 1 }, files: ["data.qi"] });
    expect(session[0]!.reply["closed"]).toBeUndefined();
    expect(await notes("sensors.qo")).toHaveLength(1);
    const got = await sim.module.request({ req: "note.get", file: "data.qi", delete: true });
    expect(got?.["body"]).toEqual({ hello: "module" });
  });

  it("carries no close while more batches wait, and pushes them after the open", async () => {
    for (let i = 0; i < 150; i++) await add("sensors.qo", { i });
    const session = await sync();
    expect(types(session)).toEqual(["open", "push", "close"]);
    expect((session[0]!.request["push"] as { notes: unknown[] }).notes).toHaveLength(100);
    expect(session[0]!.request["close"]).toBeUndefined();
    expect(session[0]!.reply["pushed"]).toEqual({ merged: 100 });
    const bodies = (await notes("sensors.qo")).map((e) => (e["body"] as { i: number }).i);
    expect(bodies.sort((a, b) => a - b)).toEqual([...Array(150).keys()]);
  });

  it("pushes and closes as before with a hub that ignores the folds, each note once", async () => {
    olderHub = true;
    await add("sensors.qo", { temp: 23 });
    const session = await sync();
    expect(types(session)).toEqual(["open", "push", "close"]);
    expect(session[0]!.reply["pushed"]).toBeUndefined();
    expect(session[1]!.request).toMatchObject({ file: "sensors.qo", after: 0, through: 1 });
    expect(await notes("sensors.qo")).toHaveLength(1);
  });

  it("keeps the note when the open's reply is lost, and sends it again as one event", async () => {
    await add("sensors.qo", { temp: 24 });
    (sim.hubLink as SimHubLink).fail({ failure: "dropped", when: (r) => r.type === "open" });
    await sim.module.request({ req: "hub.sync" });
    await sim.module.sync.idle();
    await clock.advance(60_000);
    await sync();
    expect(await notes("sensors.qo")).toHaveLength(1);
    const left = await sim.module.request({ req: "file.changes", files: ["sensors.qo"] });
    expect(left?.["total"] ?? 0).toBe(0);
  });
});
