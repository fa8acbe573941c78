import { describe, expect, it } from "vitest";
import { CapturedI2cModule } from "../../harness/capture/CapturedI2cModule.js";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { Scenario } from "../../harness/Scenario.js";
import { VirtualTimeDriver } from "../../harness/TimeDriver.js";
import { I2cHostTransport } from "../../harness/host/I2cHostTransport.js";
import { NoteCHost } from "../../harness/host/NoteCHost.js";
import { NOTE_C_TIMING } from "../../harness/host/NoteCTiming.js";

const TIMING = { i2cMtu: 14 };

/** A sensor host: adds readings, picks up commands from the hub, reads its queue count. */
async function sensorSession() {
  const sc = await Scenario.start({
    seed: "i2c-notes",
    timeKnown: true,
    capture: true,
    i2c: {
      // The Pi's BSC peripheral: no clock stretching, so a late answer is read as filler.
      profile: "bsc",
      impair: [
        { late: { rate: 0.02, ms: 4 } },
        { nack: { rate: 0.004 } },
        { truncate: { rate: 0.01, bytes: 5 } },
      ],
    },
  });
  const host = sc.attachNoteC({ transport: "i2c", timing: TIMING });
  const replies = [];
  for (let i = 0; i < 12; i++) {
    replies.push(
      await host.request({
        req: "note.add",
        file: "sensors.qo",
        body: { temp: 20 + i / 4, seq: i, pad: "p".repeat(i * 9) },
      }),
    );
    if (i === 5) await sc.world.inboundNote("commands.qi", { body: { interval: 30 } });
    if (i === 8) replies.push(await host.request({ req: "note.get", file: "commands.qi", delete: true }));
    await sc.advance(60_000);
  }
  replies.push(await host.request({ req: "file.changes", files: ["sensors.qo"] }));
  return { sc, host, replies };
}

describe("a complete scenario: a note-c host adds notes over an impaired I2C bus", () => {
  it("gets every note in despite NACKs, truncated reads and late answers, resyncing as note-c does", async () => {
    const { sc, host, replies } = await sensorSession();
    // The impairments struck and note-c recovered: I/O errors, resets, retries, no failure.
    const impairs = sc.capture!.entries.filter((e) => e.kind === "impair");
    expect(new Set(impairs.map((e) => e.info?.["impairment"]))).toEqual(
      new Set(["late", "nack", "truncate"]),
    );
    expect(host.noteC.stats.retries).toBeGreaterThan(0);
    expect(host.noteC.stats.resets).toBeGreaterThan(1);
    expect(host.noteC.stats.failures).toBe(0);

    // Every reading is stored. When the module handled a request but its reply was lost on the
    // bus, note-c sends it again with the same sequence number and CRC; a module that handles the
    // retry as a new request stores a second copy. Copies never outnumber the requests the module
    // answered successfully.
    const stored = [...sc.module.notebox.file("sensors.qo")!.notes.values()].map(
      (n) => (n.body as { seq: number }).seq,
    );
    expect(new Set(stored)).toEqual(new Set(Array.from({ length: 12 }, (_, i) => i)));
    for (let i = 0; i < 12; i++) {
      const handled = sc.traffic.lines.filter(
        (l) =>
          l.request?.["req"] === "note.add" &&
          (l.request["body"] as { seq: number }).seq === i &&
          l.replyJson?.["total"] !== undefined,
      );
      const copies = stored.filter((seq) => seq === i).length;
      expect(copies).toBeGreaterThanOrEqual(1);
      expect(copies).toBeLessThanOrEqual(handled.length);
      await sc.expectHostRequest((r) => r["req"] === "note.add" && (r["body"] as { seq: number }).seq === i);
    }
    expect(replies.at(-1)).toMatchObject({ info: { "sensors.qo": { total: stored.length } } });
    // The same holds for the hub's command: the module handed it out exactly once, to whichever
    // attempt of the host's note.get it handled first. A host that must not lose commands reads
    // them without delete:true, then deletes them.
    const handedOut = sc.traffic.lines.filter(
      (l) => l.request?.["req"] === "note.get" && l.replyJson?.["body"] !== undefined,
    );
    expect(handedOut).toHaveLength(1);
    expect(handedOut[0]!.replyJson!["body"]).toEqual({ interval: 30 });
    sc.ignore(() => true);
    await sc.finish();
  });

  it("its capture replays into a fresh module to the same replies, and into a host under test", async () => {
    const { sc, replies } = await sensorSession();
    sc.ignore(() => true);
    const capture = parseCapture(sc.capture!.toJsonl());
    await sc.finish();

    const replay = await replayHostTraffic(capture);
    expect(replay.same, describeDifferences(replay.differences)).toBe(true);
    expect(replay.actual.filter((l) => l.startsWith("i2c ")).length).toBeGreaterThan(100);

    // The module's side of the capture played back to a fresh note-c host: it makes the same
    // transactions and gets the same replies.
    const clock = new FakeClock();
    const module = new CapturedI2cModule(capture);
    const host = new NoteCHost({
      clock,
      transport: new I2cHostTransport(module, clock, { ...NOTE_C_TIMING, ...TIMING }),
    });
    const driver = new VirtualTimeDriver(clock);
    const again = [];
    for (let i = 0; i < 12; i++) {
      again.push(
        await driver.run(
          host.request({
            req: "note.add",
            file: "sensors.qo",
            body: { temp: 20 + i / 4, seq: i, pad: "p".repeat(i * 9) },
          }),
          600_000,
          "a note",
        ),
      );
      if (i === 8)
        again.push(
          await driver.run(
            host.request({ req: "note.get", file: "commands.qi", delete: true }),
            600_000,
            "get",
          ),
        );
      await driver.sleep(60_000);
    }
    again.push(
      await driver.run(host.request({ req: "file.changes", files: ["sensors.qo"] }), 600_000, "changes"),
    );
    expect(again).toEqual(replies);
    const compared = module.compare();
    expect(compared.same, describeDifferences(compared.differences)).toBe(true);
    expect(module.remaining).toBe(0);
  });
});
