import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { GpioAttnPin } from "../../../hil/gpio/GpioAttnPin.js";
import { SimGpioChip } from "../../../hil/gpio/SimGpioChip.js";
import { bootTestModule } from "../../support/moduleFixture.js";

async function rig(variant?: "cell" | "lora") {
  const clock = new FakeClock();
  const chip = new SimGpioChip(clock);
  const line = await chip.output("ATTN", { initial: true });
  const t = await bootTestModule({ clock, attnPin: new GpioAttnPin(line), ...(variant ? { variant } : {}) });
  const level = () => chip.level("ATTN");
  const edges = () => chip.history("ATTN").map((e) => [e.at - clock.now(), e.high ? 1 : 0]);
  return { t, clock, chip, level, edges };
}

describe("card.attn", () => {
  it("idles HIGH and reports set while HIGH", async () => {
    const r = await rig();
    expect(r.level()).toBe(true);
    expect(await r.t.req({ req: "card.attn" })).toEqual({ set: true });
  });

  it("arms LOW and fires HIGH when a watched notefile changes, listing it", async () => {
    const r = await rig();
    expect(
      await r.t.req({ req: "card.attn", mode: "arm,files", files: ["data.qi", "my-settings.db"] }),
    ).toEqual({});
    expect(r.level()).toBe(false);
    // A note arrives in data.qi (the sync engine does this; here straight through the notebox).
    await r.t.module.notebox.transact(() =>
      r.t.module.notebox.appendToQueue("other.qi", { body: {}, time: 0 }),
    );
    r.t.module.attn.noticeFileChanges(r.t.module.notebox);
    expect(r.level()).toBe(false);
    await r.t.module.notebox.transact(() =>
      r.t.module.notebox.appendToQueue("data.qi", { body: { a: 1 }, time: 0 }),
    );
    r.t.module.attn.noticeFileChanges(r.t.module.notebox);
    expect(r.level()).toBe(true);
    expect(await r.t.req({ req: "card.attn" })).toEqual({ files: ["data.qi"], set: true });
    // arm clears the events.
    await r.t.req({ req: "card.attn", mode: "arm" });
    expect(await r.t.req({ req: "card.attn" })).toEqual({});
  });

  it("fires on a file change made by a request, checked after every request", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm,files", files: ["state.db"] });
    await r.t.module.request({ req: "echo" });
    expect(r.level()).toBe(false);
    await r.t.module.notebox.transact(() => {
      const file = r.t.module.notebox.ensureFile("state.db");
      r.t.module.notebox.putNote(file, { id: "a", body: { x: 1 }, updates: 1, time: 0 });
    });
    await r.t.module.request({ req: "echo" });
    expect(r.level()).toBe(true);
  });

  it("fires after seconds with a timeout event, and not before", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm", seconds: 30 });
    await r.clock.advance(29_999);
    expect(r.level()).toBe(false);
    await r.clock.advance(1);
    expect(r.level()).toBe(true);
    expect((await r.t.req({ req: "card.attn" })).files).toEqual(["timeout"]);
  });

  it("glitches HIGH when arm is sent while armed, but rearm keeps it LOW", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm" });
    const before = r.chip.history("ATTN").length;
    await r.t.req({ req: "card.attn", mode: "rearm" });
    expect(r.chip.history("ATTN").length).toBe(before);
    await r.t.req({ req: "card.attn", mode: "arm" });
    await r.clock.advance(5);
    expect(
      r.chip
        .history("ATTN")
        .slice(before)
        .map((e) => e.high),
    ).toEqual([true, false]);
    expect(r.level()).toBe(false);
  });

  it("rearm arms when disarmed", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "rearm", seconds: 10 });
    expect(r.level()).toBe(false);
    await r.clock.advance(10_000);
    expect(r.level()).toBe(true);
  });

  it("disarms HIGH; disarm,-all clears the monitors", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm,env,signal" });
    await r.t.req({ req: "card.attn", mode: "disarm" });
    expect(r.level()).toBe(true);
    expect((await r.t.req({ req: "card.attn", verify: true })).mode).toBe("env,signal");
    await r.t.req({ req: "card.attn", mode: "disarm,-all" });
    expect((await r.t.req({ req: "card.attn", verify: true })).mode).toBeUndefined();
  });

  it("fires on env changes and signals only when those monitors are on", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm,env" });
    r.t.module.attn.trigger("signal");
    expect(r.level()).toBe(false);
    r.t.module.attn.trigger("env");
    expect(r.level()).toBe(true);
    expect((await r.t.req({ req: "card.attn" })).files).toEqual(["env"]);
    await r.t.req({ req: "card.attn", mode: "arm,signal,-env" });
    r.t.module.attn.trigger("env");
    expect(r.level()).toBe(false);
    r.t.module.attn.trigger("signal");
    expect(r.level()).toBe(true);
  });

  it("turns -files off and validates files", async () => {
    const r = await rig();
    expect((await r.t.req({ req: "card.attn", mode: "arm,files" })).err).toMatch(/files array/);
    expect((await r.t.req({ req: "card.attn", mode: "arm,files", files: ["nope"] })).err).toMatch(
      /nope is not a notefile name$/,
    );
    await r.t.req({ req: "card.attn", mode: "arm,files", files: ["a.qi"] });
    await r.t.req({ req: "card.attn", mode: "-files" });
    expect((await r.t.req({ req: "card.attn", verify: true })).files).toBeUndefined();
  });

  it("pulses the watchdog when the host sends nothing for seconds, and every request restarts it", async () => {
    const r = await rig();
    expect((await r.t.req({ req: "card.attn", mode: "watchdog", seconds: 30 })).err).toMatch(/at least 60/);
    await r.t.req({ req: "card.attn", mode: "watchdog", seconds: 60 });
    await r.clock.advance(59_000);
    await r.t.req({ req: "echo" });
    await r.clock.advance(59_000);
    expect(r.chip.history("ATTN").length).toBe(1);
    await r.clock.advance(1_000);
    expect(r.level()).toBe(false); // the pulse: LOW...
    await r.clock.advance(250);
    expect(r.level()).toBe(true); // ...then HIGH again
    expect((await r.t.req({ req: "card.attn" })).files).toEqual(["watchdog"]);
    // It keeps watching: another 60 s of silence pulses again.
    await r.clock.advance(60_000);
    expect(r.chip.history("ATTN").filter((e) => !e.high).length).toBe(2);
    await r.t.req({ req: "card.attn", mode: "-watchdog" });
    await r.clock.advance(600_000);
    expect(r.chip.history("ATTN").filter((e) => !e.high).length).toBe(2);
  });

  it("sleeps the host: LOW just after the reply, HIGH after seconds, payload handed back once", async () => {
    const r = await rig();
    expect((await r.t.req({ req: "card.attn", mode: "sleep" })).err).toMatch(/seconds/);
    expect((await r.t.req({ req: "card.attn", mode: "sleep", seconds: 5, payload: "!!" })).err).toMatch(
      /base64/,
    );
    r.t.module.setTime(1_800_000_000);
    const reply = await r.t.req({ req: "card.attn", mode: "sleep", seconds: 3600, payload: "aGVsbG8=" });
    expect(reply).toEqual({});
    expect(r.level()).toBe(true); // the host still reads the reply
    await r.clock.advance(250);
    expect(r.level()).toBe(false);
    await r.clock.advance(3600_000 - 250);
    expect(r.level()).toBe(true);
    const woke = await r.t.req({ req: "card.attn", start: true });
    // time is the module's clock at wake-up (note-c sets the host clock from it), an hour later.
    expect(woke).toEqual({ payload: "aGVsbG8=", time: 1_800_003_600, files: ["timeout"], set: true });
    expect((await r.t.req({ req: "card.attn", start: true })).payload).toBeUndefined();
  });

  it("wakes a sleeping host early on an enabled event", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "sleep,files", files: ["wake.qi"], seconds: 3600 });
    await r.clock.advance(1000);
    expect(r.level()).toBe(false);
    await r.t.module.notebox.transact(() =>
      r.t.module.notebox.appendToQueue("wake.qi", { body: {}, time: 0 }),
    );
    r.t.module.attn.noticeFileChanges(r.t.module.notebox);
    expect(r.level()).toBe(true);
  });

  it("off drives the pin LOW and survives a restart; on brings it back", async () => {
    const r = await rig();
    expect(await r.t.req({ req: "card.attn", off: true })).toEqual({ off: true });
    expect(r.level()).toBe(false);
    await r.t.req({ req: "card.attn", mode: "arm" });
    r.t.module.restartAfterReply();
    await r.t.module.request({ req: "echo" });
    expect(await r.t.req({ req: "card.attn" })).toEqual({ off: true });
    expect(r.level()).toBe(false);
    expect(await r.t.req({ req: "card.attn", on: true })).toEqual({ set: true });
    expect(r.level()).toBe(true);
  });

  it("verify returns the configuration", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm,files,env", files: ["a.qi"], seconds: 120 });
    expect(await r.t.req({ req: "card.attn", verify: true })).toEqual({
      mode: "arm,files,env",
      files: ["a.qi"],
      seconds: 120,
    });
  });

  it("rejects unknown keywords and keywords the LoRa module lacks", async () => {
    const r = await rig();
    expect((await r.t.req({ req: "card.attn", mode: "arm,bogus" })).err).toMatch(
      /unknown mode keyword: bogus$/,
    );
    const lora = await rig("lora");
    expect((await lora.t.req({ req: "card.attn", mode: "sleep", seconds: 5 })).err).toMatch(
      /\{not-supported\}/,
    );
    expect(await lora.t.req({ req: "card.attn", mode: "arm,env" })).toEqual({});
  });

  it("forgets arming on restart but keeps off", async () => {
    const r = await rig();
    await r.t.req({ req: "card.attn", mode: "arm", seconds: 10 });
    r.t.module.restartAfterReply();
    await r.t.module.request({ req: "echo" });
    expect(r.level()).toBe(true);
    await r.clock.advance(20_000); // the old timeout was cancelled with the old state
    expect(r.chip.history("ATTN").filter((e) => !e.high).length).toBe(1);
  });
});
