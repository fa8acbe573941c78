import { afterEach, describe, expect, it } from "vitest";
import { decodeBase64 } from "../../core/base64.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { HostTraffic } from "../../harness/HostTraffic.js";
import { Scenario } from "../../harness/Scenario.js";

describe("the module's world, scripted", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("delivers inbound notes into .qi queues and .db databases, as the hub would", async () => {
    sc = await Scenario.start({ timeKnown: true, capture: true });
    await sc.advance(5000);
    await sc.world.inboundNote("commands.qi", { body: { on: true } });
    await sc.world.inboundNote("commands.qi", { payload: Uint8Array.of(1, 2, 3) });
    await sc.world.inboundNote("config.db", { id: "limits", body: { max: 5 } });
    await sc.world.inboundNote("config.db", { id: "limits", body: { max: 6 } });
    const queue = [...sc.module.notebox.file("commands.qi")!.notes.values()];
    const now = Date.UTC(2026, 0, 1) / 1000 + 5;
    expect(queue.map((n) => [n.body, n.payload && [...n.payload], n.time])).toEqual([
      [{ on: true }, undefined, now],
      [undefined, [1, 2, 3], now],
    ]);
    const note = sc.module.notebox.file("config.db")!.notes.get("limits")!;
    expect([note.body, note.updates]).toEqual([{ max: 6 }, 1]);
    const world = sc.capture!.entries.filter((e) => e.kind === "world");
    expect(world.map((e) => e.info)).toEqual([
      { action: "inboundNote", file: "commands.qi", body: { on: true } },
      { action: "inboundNote", file: "commands.qi", payload: "AQID" },
      { action: "inboundNote", file: "config.db", id: "limits", body: { max: 5 } },
      { action: "inboundNote", file: "config.db", id: "limits", body: { max: 6 } },
    ]);
    expect([...decodeBase64("AQID")!]).toEqual([1, 2, 3]);
    await sc.finish();
  });

  it("refuses notes the hub could not send, and changes nothing", async () => {
    sc = await Scenario.start();
    await expect(sc.world.inboundNote("data.qo", { body: {} })).rejects.toThrow(/\.qi, \.qis, \.db or \.dbs/);
    await expect(sc.world.inboundNote("config.db", { body: {} })).rejects.toThrow(/needs an id/);
    await expect(sc.world.inboundNote("commands.qi", { id: "x" })).rejects.toThrow(/queue notes have no ID/);
    expect(sc.module.notebox.file("config.db")).toBeUndefined();
    expect(sc.module.notebox.file("commands.qi")).toBeUndefined();
    await sc.finish();
  });

  it("applies a change only between host requests, never while the module is processing one", async () => {
    const clock = new FakeClock();
    const traffic = new HostTraffic(clock);
    let finish!: (reply: string) => void;
    const module = traffic.wrap(
      {
        handleLine: () => new Promise<string>((resolve) => (finish = resolve)),
        handleOverflow: async () => undefined,
      },
      "serial",
    );
    const order: string[] = [];
    const reply = module.handleLine(new TextEncoder().encode('{"req":"slow"}'));
    const change = traffic.exclusive(async () => void order.push("change"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    order.push("processed");
    finish('{"ok":true}\r\n');
    await Promise.all([reply, change]);
    expect(order).toEqual(["processed", "change"]);
    expect(traffic.lines[0]).toMatchObject({
      kind: "request",
      reply: '{"ok":true}',
      replyJson: { ok: true },
    });
  });

  it("a change while a request is still arriving is applied before it (the line is not complete)", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    await host.reset();
    const order: string[] = [];
    const request = host.request({ req: "echo", text: "x".repeat(600) }).then(() => order.push("reply"));
    await sc.advance(300);
    const change = sc.world.inboundNote("in.qi", { body: {} }).then(() => order.push("note"));
    await sc.run(Promise.all([request, change]));
    expect(order).toEqual(["note", "reply"]);
    await sc.expectHostRequest((r) => r["req"] === "echo");
    await sc.finish();
  });

  it("delivers hub environment variables that the host reads with env.get, under its own env.set", async () => {
    sc = await Scenario.start({ timeKnown: true, capture: true });
    const host = sc.attachNoteC();
    await sc.advance(10_000);
    await sc.world.hubEnv({ device: { Mode: "fast" }, project: { mode: "slow", rate: "5" } });
    const start = Date.UTC(2026, 0, 1) / 1000;
    expect(await host.request({ req: "env.get", name: "mode" })).toEqual({ text: "fast", time: start + 10 });
    expect(await host.request({ req: "env.get" })).toEqual({
      body: { Mode: "fast", rate: "5" },
      time: start + 10,
    });
    await host.request({ req: "env.set", name: "rate", text: "9" });
    await sc.world.hubEnv({ fleet: { rate: "7" } });
    expect(await host.request({ req: "env.get", name: "rate" })).toMatchObject({ text: "9" });
    expect(sc.capture!.entries.filter((e) => e.kind === "world").map((e) => e.info)).toEqual([
      { action: "env", device: { Mode: "fast" }, project: { mode: "slow", rate: "5" } },
      { action: "env", fleet: { rate: "7" } },
    ]);
    await expect(sc.world.hubEnv({ device: { "": "x" } })).rejects.toThrow(/needs a string value/);
    sc.ignore(() => true);
    await sc.finish();
  });

  it("changes the supply the module measures, and coverage, with outages that end by themselves", async () => {
    sc = await Scenario.start({ capture: true });
    const host = sc.attachNoteC();
    await sc.world.supply({ volts: 3.05, usb: true });
    expect([sc.module.power.voltage(), sc.module.power.usb()]).toEqual([3.05, true]);
    expect(await host.request({ req: "card.voltage" })).toMatchObject({ usb: true });
    await sc.expectHostRequest((r) => r["req"] === "card.voltage");
    const changes: [number, boolean][] = [];
    const t0 = sc.elapsed();
    sc.radio.onChange((online) => changes.push([sc!.elapsed() - t0, online]));
    await sc.advance(1000);
    await sc.world.radioOutage(60_000);
    expect(sc.radio.online).toBe(false);
    await sc.advance(60_000);
    expect(sc.radio.online).toBe(true);
    await sc.world.radioOutage();
    await sc.advance(1000);
    await sc.world.radioBack();
    expect(changes).toEqual([
      [1000, false],
      [61_000, true],
      [61_000, false],
      [62_000, true],
    ]);
    await expect(sc.world.supply({ volts: -1 })).rejects.toThrow(/out of range/);
    await sc.finish();
  });

  it("a power cycle keeps what the flash held, loses the rest, and a host's retry gets through", async () => {
    sc = await Scenario.start({ capture: true });
    const host = sc.attachNoteC();
    const device = sc.module.deviceUid;
    await sc.world.inboundNote("kept.qi", { body: { n: 1 } });
    await host.reset();
    // The power goes while the host's long request is arriving: the module never answers it.
    const reply = host.request({ req: "echo", text: "z".repeat(600) });
    await sc.advance(300);
    const before = sc.module;
    await sc.world.powerCycle();
    expect(sc.module).not.toBe(before);
    expect(sc.module.deviceUid).toBe(device);
    expect(sc.module.notebox.file("kept.qi")!.notes.size).toBe(1);
    expect(await reply).toEqual({ text: "z".repeat(600) });
    expect(host.noteC.stats.retries).toBe(1);
    await sc.expectHostRequest((r) => r["req"] === "echo");
    // The half line the old module had is gone; the new one saw the rest as a damaged line.
    sc.ignore((_, l) => l.kind === "invalid");
    expect(sc.capture!.entries.some((e) => e.info?.["event"] === "power-off")).toBe(true);
    await sc.finish();
  });
});
