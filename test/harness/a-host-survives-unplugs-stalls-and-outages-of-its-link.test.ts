import { afterEach, describe, expect, it } from "vitest";
import { Scenario } from "../../harness/Scenario.js";

describe("link troubles between a note-c host and the module", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("a stall shorter than note-c's timeout only delays the reply", async () => {
    sc = await Scenario.start({ capture: true });
    const host = sc.attachNoteC();
    await host.reset();
    const start = sc.elapsed();
    sc.stall(5000, "m2h");
    expect(await host.request({ req: "echo", text: "late" })).toEqual({ text: "late" });
    expect(sc.elapsed() - start).toBeGreaterThanOrEqual(5000);
    expect(host.noteC.stats.retries).toBe(0);
    expect(sc.capture!.entries.some((e) => e.kind === "impair" && e.info?.["impairment"] === "stall")).toBe(
      true,
    );
    await sc.expectHostRequest(() => true);
    await sc.finish();
  });

  it("a scheduled outage loses a request; the host times out, resets, and retries once the link is back", async () => {
    sc = await Scenario.start({ serial: { impair: { outages: [{ at: 700, for: 20_000 }] } } });
    const host = sc.attachNoteC();
    expect(await host.request({ req: "echo", text: "later" })).toEqual({ text: "later" });
    expect(host.events.filter((e) => e.event === "retry").map((e) => e.detail)).toEqual([
      "transaction timeout {io}",
    ]);
    await sc.expectHostRequest((r) => r["text"] === "later");
    await sc.finish();
  });

  it("unplugging the cable fails the host's I/O; after replugging, its next request works", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    expect(await host.request({ req: "echo", text: "before" })).toEqual({ text: "before" });
    await sc.unplug();
    const failed = await host.request({ req: "echo", text: "unplugged" });
    expect(failed).toEqual({ err: "serial port closed {io}", src: "note-c" });
    sc.replug();
    expect(await host.request({ req: "echo", text: "after" })).toEqual({ text: "after" });
    await sc.expectHostRequest((r) => r["text"] === "before");
    await sc.expectHostRequest((r) => r["text"] === "after");
    await sc.finish();
  });
});
