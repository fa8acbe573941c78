import { describe, expect, it } from "vitest";
import { SimHubLink } from "../../../firmware/radio/SimHubLink.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { SimulatedModule } from "../../../runtime/SimulatedModule.js";
import { MockHub } from "./support/MockHub.js";

async function linked(seed = 1) {
  const clock = new FakeClock();
  const hub = new MockHub();
  const link = new SimHubLink((r) => hub.respond(r), { clock });
  const sim = await SimulatedModule.boot({
    clock,
    seed,
    timeKnown: true,
    hub: { link, product: "product:com.example:test" },
  });
  const req = async (r: Record<string, unknown>) => (await sim.module.request(r))!;
  const sync = async (extra: Record<string, unknown> = {}) => {
    await req({ req: "hub.sync", ...extra });
    await sim.module.sync.idle();
    return req({ req: "hub.sync.status" });
  };
  return { clock, hub, link, sim, req, sync };
}

describe("the module's end of a sync", () => {
  it("sends queue notes once, and forgets them only after the hub acknowledged them", async () => {
    const { hub, sim, req, sync } = await linked();
    for (let i = 0; i < 3; i++) await req({ req: "note.add", file: "sensors.qo", body: { i } });
    const status = await sync();
    expect(status).toMatchObject({ status: "completed {sync-end}" });
    expect(status["sync"]).toBeUndefined();
    expect(hub.received.map((r) => r.note.body)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(sim.module.notebox.file("sensors.qo")?.notes.size).toBe(0);
    await sync();
    expect(hub.received).toHaveLength(3);
    await sim.close();
  });

  it("sends a batch again when the acknowledgment is lost, and never twice once it arrived", async () => {
    const { hub, link, sim, req, sync } = await linked();
    await req({ req: "note.add", file: "sensors.qo", body: { n: 1 } });
    link.fail({ failure: "dropped", when: (r) => r.type === "push" });
    const failed = await sync();
    expect(failed["alert"]).toBe(true);
    expect(String(failed["status"])).toMatch(/\{sync-error\}/);
    expect(sim.module.notebox.file("sensors.qo")?.notes.size).toBe(1);
    await sync();
    // The hub saw the note twice (its event UID makes that one event); the module now forgets it.
    expect(hub.received.map((r) => r.note.body)).toEqual([{ n: 1 }, { n: 1 }]);
    expect(hub.received[0]!.note).toEqual(hub.received[1]!.note);
    expect(sim.module.notebox.file("sensors.qo")?.notes.size).toBe(0);
    await sim.close();
  });

  it("takes the hub's inbound notes once, even when its acknowledgment is lost", async () => {
    const { hub, link, sim, req, sync } = await linked();
    hub.add("commands.qi", undefined, { go: 1 });
    hub.add("commands.qi", undefined, { go: 2 });
    link.fail({ failure: "dropped", when: (r) => r.type === "ack" });
    await sync();
    await sync();
    const got = [];
    for (;;) {
      const reply = await req({ req: "note.get", file: "commands.qi", delete: true });
      if (reply["err"]) break;
      got.push(reply["body"]);
    }
    expect(got).toEqual([{ go: 1 }, { go: 2 }]);
    await sim.close();
  });

  it("merges database notes both ways without echoing the hub's own change back", async () => {
    const { hub, sim, req, sync } = await linked();
    await req({ req: "note.add", file: "config.db", note: "a", body: { v: 1 } });
    hub.add("config.db", "b", { v: 2 });
    await sync();
    expect((await req({ req: "note.get", file: "config.db", note: "b" }))["body"]).toEqual({ v: 2 });
    const pushesBefore = hub.received.length;
    await sync();
    expect(hub.received.length).toBe(pushesBefore);
    // A change on the module to the hub's note goes up; a change on the hub comes down.
    await req({ req: "note.update", file: "config.db", note: "b", body: { v: 3 } });
    await sync();
    expect(hub.files.get("config.db")!.notes.get("b")!.body).toEqual({ v: 3 });
    await sim.close();
  });

  it("lets requests through while it waits on the hub", async () => {
    const { clock, hub, sim, req } = await linked();
    const slow = hub.respond;
    hub.respond = async (r) => {
      await new Promise<void>((resolve) => clock.setTimer(resolve, 5000));
      return slow(r);
    };
    await req({ req: "hub.sync" });
    await clock.advance(1);
    expect(await req({ req: "card.version" })).toHaveProperty("version");
    expect((await req({ req: "hub.status" }))["connected"]).toBe(true);
    await clock.advance(60_000);
    await sim.module.sync.idle();
    await sim.close();
  });

  it("reports a hub's refusal in hub.status and hub.sync.status", async () => {
    const { hub, sim, sync, req } = await linked();
    const real = hub.respond;
    hub.respond = async (r) =>
      r.type === "open" ? { v: 1, err: "{auth} the device's key does not match" } : real(r);
    const status = await sync();
    expect(status).toMatchObject({ alert: true });
    expect(String(status["status"])).toMatch(/\{auth\}/);
    expect(String((await req({ req: "hub.status" }))["status"])).toMatch(/\{auth\}/);
    await sim.close();
  });
});
