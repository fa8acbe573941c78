import { afterEach, describe, expect, it } from "vitest";
import type { MemoryLog } from "../../firmware/ModuleLog.js";
import { Scenario } from "../../harness/Scenario.js";

describe("a host that ignores segment pacing", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("overflows the 1500-byte receive buffer at 115200 baud, gets {io} errors, and never gets through", async () => {
    sc = await Scenario.start({ serial: { baud: 115_200 }, capture: true });
    const host = sc.attachNoteC({ timing: { paceSegments: false } });
    const text = "u".repeat(3000);
    // The request's end (\r\n) is lost with the rest of the overflow, so the module waits for
    // the line to end; note-c times out after 30 s, and its reset's newline ends the damaged line.
    expect(await host.request({ req: "echo", text })).toEqual({
      err: "transaction timeout {io}",
      src: "note-c",
    });
    const attempts = sc.traffic.lines.filter((l) => l.kind === "invalid");
    expect(attempts).toHaveLength(6);
    for (const a of attempts) {
      expect(a.text.length).toBeLessThan(3000);
      expect(a.reply).toMatch(/^\{"err":"(JSON object expected|cannot interpret JSON): .*\{io\}"\}$/);
      await sc.expectOverflow();
    }
    expect(sc.overflows).toHaveLength(6);
    expect(() => sc!.expectPacedSegments()).toThrow(/burst of \d+ bytes/);
    // What the receive buffer lost is in the capture and in the module's log.
    expect(sc.capture!.entries.some((e) => e.kind === "overflow" && e.link === "serial.module")).toBe(true);
    expect((sc.log as MemoryLog).lines.some((l) => l.message === "serial receive buffer overflow")).toBe(
      true,
    );
    sc.ignore((_, l) => l.kind === "invalid");
    await sc.finish();
  });

  it("gets the same request through when it paces its segments", async () => {
    sc = await Scenario.start({ serial: { baud: 115_200 } });
    const host = sc.attachNoteC();
    const text = "u".repeat(3000);
    expect(await host.request({ req: "echo", text })).toEqual({ text });
    sc.expectPacedSegments();
    expect(sc.overflows).toHaveLength(0);
    await sc.expectHostRequest((r) => r["req"] === "echo");
    await sc.finish();
  });

  it("gets through at 9600 baud: the wire is slower than the module drains its buffer", async () => {
    sc = await Scenario.start({ serial: { baud: 9600 } });
    const host = sc.attachNoteC({ timing: { paceSegments: false } });
    const text = "u".repeat(3000);
    expect(await host.request({ req: "echo", text })).toEqual({ text });
    expect(sc.overflows).toHaveLength(0);
    await sc.expectHostRequest((r) => r["req"] === "echo");
    await sc.finish();
  });

  it("overflows on a link with no baud rate (USB) as soon as one burst exceeds the buffer", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC({ timing: { paceSegments: false } });
    expect(await host.request({ req: "echo", text: "v".repeat(1400) })).toEqual({ text: "v".repeat(1400) });
    expect(sc.overflows).toHaveLength(0);
    const reply = await host.request({ req: "echo", text: "v".repeat(1600) });
    expect(reply["err"]).toMatch(/\{io\}/);
    const first = await sc.expectOverflow();
    // The buffer kept the first 1500 bytes of the burst and lost the rest (the request, then its \r\n).
    expect(first.map((o) => o.bytes.length)).toEqual([sc.wireLines[2]!.bytes - 1502, 2]);
    for (let i = 1; i < sc.overflows.length; i++) await sc.expectOverflow();
    await sc.expectHostRequest((r) => r["req"] === "echo");
    sc.ignore((_, l) => l.kind === "invalid");
    await sc.finish();
  });
});
