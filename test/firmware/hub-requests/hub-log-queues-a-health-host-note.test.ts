import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("hub.log", () => {
  it("queues the text in _health_host.qo, oldest first, stamped with the module time", async () => {
    const t = await bootTestModule({ timeKnown: true });
    expect(await t.req({ req: "hub.log", text: "something is wrong!", alert: true, sync: true })).toEqual({});
    await t.clock.advance(2_000);
    await t.req({ req: "hub.log", text: "all good again" });
    const notes = [...t.module.notebox.file("_health_host.qo")!.notes.values()];
    expect(notes.map((n) => n.body)).toEqual([
      { text: "something is wrong!", alert: true },
      { text: "all good again" },
    ]);
    expect(notes[1]!.time - notes[0]!.time).toBe(2);
    const again = await t.reboot();
    expect(again.module.notebox.file("_health_host.qo")!.notes.size).toBe(2);
  });

  it("needs text, checks types, and does not exist on LoRa", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "hub.log" })).err).toBe("hub.log: text is required");
    expect((await t.req({ req: "hub.log", text: "x", alert: "yes" })).err).toMatch(/\{io\}/);
    expect(t.module.notebox.file("_health_host.qo")).toBeUndefined();
    const lora = await bootTestModule({ variant: "lora" });
    expect((await lora.req({ req: "hub.log", text: "x" })).err).toBe(
      "request not supported for lora {not-supported}",
    );
  });
});

describe("hub.log sync", () => {
  it("records a sync request for the health queue, as note.add sync does", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.log", text: "hello" });
    expect([...t.module.notebox.syncRequests()]).toEqual([]);
    await t.req({ req: "hub.log", text: "now", sync: true });
    expect([...t.module.notebox.syncRequests()]).toEqual(["_health_host.qo"]);
  });
});
