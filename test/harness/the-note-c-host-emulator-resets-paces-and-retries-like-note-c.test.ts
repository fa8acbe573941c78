import { afterEach, describe, expect, it } from "vitest";
import { appendCrc } from "../../firmware/host/RequestCrc.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { Scenario } from "../../harness/Scenario.js";
import { VirtualTimeDriver } from "../../harness/TimeDriver.js";
import { NoteCHost } from "../../harness/host/NoteCHost.js";
import { NOTE_C_TIMING } from "../../harness/host/NoteCTiming.js";
import { SerialHostTransport } from "../../harness/host/SerialHostTransport.js";
import { MemoryLink } from "../../hil/links/MemoryLink.js";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

describe("the note-c host emulator against the module", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("resets with a bare newline after 250 ms and listens 500 ms before its first request", async () => {
    sc = await Scenario.start({ capture: true });
    const host = sc.attachNoteC();
    await host.request({ req: "echo" });
    await sc.expectHostRequest((r) => r["req"] === "echo");
    const hostBytes = sc.capture!.entries.filter((e) => e.link === "serial.host" && e.kind === "bytes");
    expect(hostBytes[0]).toMatchObject({ t: 250, dir: "h2m", hex: "0a" });
    expect(hostBytes[1]).toMatchObject({ t: 260, dir: "m2h", hex: "0d0a" });
    expect(hostBytes[2]).toMatchObject({ t: 750, dir: "h2m" });
    expect(sc.traffic.lines.map((l) => l.kind)).toEqual(["blank", "request"]);
    await sc.finish();
  });

  it("sends a long request in 250-byte segments 250 ms apart, which the pacing check accepts", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    const text = "p".repeat(900);
    expect(await host.request({ req: "echo", text })).toEqual({ text });
    await sc.expectHostRequest((r) => r["req"] === "echo");
    const lines = sc.expectPacedSegments({ minGapMs: 250 });
    expect(lines.at(-1)!.bursts.map((b) => b.bytes)).toEqual([250, 250, 250, 198]);
    expect(sc.overflows).toHaveLength(0);
    await sc.finish();
  });

  it("at 9600 baud its segments leave with the UART driver's timing, still paced", async () => {
    sc = await Scenario.start({ serial: { baud: 9600 } });
    const host = sc.attachNoteC();
    const text = "q".repeat(600);
    expect(await host.request({ req: "echo", text })).toEqual({ text });
    await sc.expectHostRequest(() => true);
    const [line] = sc.expectPacedSegments().slice(-1);
    // 250 bytes take 260 ms on the wire; the 250 ms pause starts when all but 64 have left.
    expect(line!.bursts.map((b) => [b.bytes, b.end - b.start])).toEqual([
      [250, 259],
      [250, 259],
      [148, 153],
    ]);
    await sc.finish();
  });

  it("numbers its requests and checks the module's reply CRC", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    for (let i = 0; i < 3; i++) await host.request({ req: "echo", text: `n${i}` });
    for (let i = 0; i < 3; i++) {
      const line = await sc.expectHostRequest((r) => r["text"] === `n${i}`);
      expect(line.crcSequence).toBe(i);
      expect(line.reply).toMatch(new RegExp(`"crc":"000${i}:[0-9A-F]{8}"}$`));
    }
    expect(host.noteC.stats).toMatchObject({ transactions: 3, retries: 0, failures: 0 });
    await sc.finish();
  });

  it("retries a request the wire damaged, 500 ms later, with the same sequence number", async () => {
    // Byte 23 is the "d" of "damaged" (byte 0 is the reset's newline): "d" ^ 1 is "e", so the
    // request is still JSON, but its CRC no longer matches.
    sc = await Scenario.start({ serial: { impair: { h2m: [{ flip: { at: 23, mask: 0x01 } }] } } });
    const host = sc.attachNoteC();
    expect(await host.request({ req: "echo", text: "damaged" })).toEqual({ text: "damaged" });
    const first = await sc.expectHostRequest((r) => r["text"] === "eamaged");
    const retry = await sc.expectHostRequest((r) => r["text"] === "damaged");
    expect(first.reply).toMatch(/CRC error.*\{io\}/);
    expect(retry.crcSequence).toBe(0);
    expect(retry.t - first.repliedAt!).toBeGreaterThanOrEqual(500);
    expect(host.noteC.stats).toMatchObject({ retries: 1, failures: 0 });
    await sc.finish();
  });

  it("retries when the reply was damaged (reply CRC error)", async () => {
    sc = await Scenario.start({ serial: { impair: { m2h: [{ flip: { at: 8, mask: 0x02 } }] } } });
    const host = sc.attachNoteC();
    expect(await host.request({ req: "echo", text: "back" })).toEqual({ text: "back" });
    expect(host.events.filter((e) => e.event === "retry").map((e) => e.detail)).toEqual(["CRC error {io}"]);
    const lines = [await sc.expectHostRequest(() => true), await sc.expectHostRequest(() => true)];
    expect(lines.map((l) => l.crcSequence)).toEqual([0, 0]);
    await sc.finish();
  });

  it("gives up after six attempts when nothing comes back, and resets before its next request", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    await host.reset();
    sc.disconnect();
    const reply = await host.request({ req: "echo", text: "void" });
    expect(reply).toEqual({ err: "transaction timeout {io}", src: "note-c" });
    expect(host.noteC.stats).toMatchObject({ failures: 1, retries: 5 });
    // Six 30 s waits, each followed by a reset that tries ten newlines, a second apart.
    expect(sc.elapsed()).toBeGreaterThan(6 * 30_000 + 5 * 10 * 1000);
    sc.reconnect();
    expect(await host.request({ req: "echo", text: "back" })).toEqual({ text: "back" });
    sc.ignore(() => true);
    await sc.finish();
  });

  it("does not retry {not-supported}", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    const reply = await host.request({ req: "card.nothing" });
    expect(reply["err"]).toMatch(/\{not-supported\}/);
    expect(host.noteC.stats.retries).toBe(0);
    await sc.expectHostRequest((r) => r["req"] === "card.nothing");
    await sc.finish();
  });

  it("a host restart abandons its transaction and starts over at sequence 0 with a reset", async () => {
    sc = await Scenario.start();
    const host = sc.attachNoteC();
    await host.request({ req: "echo", text: "one" });
    const abandoned = host.request({ req: "echo", text: "x".repeat(700) }).catch((e: Error) => e.message);
    await sc.advance(300);
    await sc.resetHost();
    expect(await abandoned).toBe("the host restarted during the transaction");
    await host.request({ req: "echo", text: "two" });
    await sc.expectHostRequest((r) => r["text"] === "one");
    const after = await sc.expectHostRequest((r) => r["text"] === "two");
    expect(after.crcSequence).toBe(0);
    // The abandoned request's first segment reached the module and ends at the reset's newline.
    expect(sc.traffic.unconsumed().map((l) => l.kind)).toEqual(["invalid"]);
    sc.ignore((_, l) => l.kind === "invalid");
    await sc.finish();
  });
});

describe("the note-c host emulator against a scripted module", () => {
  async function scripted(answer: (line: string, write: (s: string) => void) => void) {
    const clock = new FakeClock();
    const driver = new VirtualTimeDriver(clock);
    const [hostEnd, moduleEnd] = MemoryLink.pair();
    let text = "";
    moduleEnd.onData((b) => {
      text += decoder.decode(b);
      let nl: number;
      while ((nl = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, nl).trim();
        text = text.slice(nl + 1);
        if (line === "") moduleEnd.write(encoder.encode("\r\n"));
        else answer(line, (s) => moduleEnd.write(encoder.encode(s)));
      }
    });
    const transport = new SerialHostTransport(hostEnd, clock, NOTE_C_TIMING);
    const host = new NoteCHost({ clock, transport });
    return { host, driver };
  }

  it("waits through heartbeats for the real reply", async () => {
    const { host, driver } = await scripted((line, write) => {
      const seq = Number.parseInt(/"crc":"(\w{4})/.exec(line)![1]!, 16);
      write('{"err":"{heartbeat}","status":"working"}\r\n');
      write(appendCrc('{"done":true}', seq) + "\r\n");
    });
    expect(await driver.run(host.request({ req: "web.get" }), 100_000, "reply")).toEqual({ done: true });
    expect(host.stats.retries).toBe(0);
  });

  it("does not retry {bad-bin}, and retries {io} errors up to five times", async () => {
    let calls = 0;
    const { host, driver } = await scripted((_line, write) => {
      calls++;
      write('{"err":"binary data does not match {bad-bin}"}\r\n');
    });
    expect(await driver.run(host.request({ req: "card.binary" }), 100_000, "reply")).toEqual({
      err: "binary data does not match {bad-bin}",
    });
    expect(calls).toBe(1);
    calls = 0;
    const io = await scripted((_line, write) => {
      calls++;
      write('{"err":"something went wrong {io}"}\r\n');
    });
    expect(await io.driver.run(io.host.request({ req: "echo" }), 100_000, "reply")).toEqual({
      err: "corrupt response {io}",
      src: "note-c",
    });
    expect(calls).toBe(6);
  });

  it("treats a missing reply CRC as an error once the module has sent one", async () => {
    let first = true;
    const { host, driver } = await scripted((line, write) => {
      const seq = Number.parseInt(/"crc":"(\w{4})/.exec(line)![1]!, 16);
      write((first ? appendCrc("{}", seq) : "{}") + "\r\n");
      first = false;
    });
    expect(await driver.run(host.request({ req: "echo" }), 100_000, "reply")).toEqual({});
    expect(await driver.run(host.request({ req: "echo" }), 100_000, "reply")).toEqual({
      err: "CRC error {io}",
      src: "note-c",
    });
  });
});
