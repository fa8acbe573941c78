import { afterEach, describe, expect, it } from "vitest";
import { CapturedModule } from "../../harness/capture/CapturedModule.js";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { Scenario } from "../../harness/Scenario.js";
import { VirtualTimeDriver } from "../../harness/TimeDriver.js";
import { NoteCHost } from "../../harness/host/NoteCHost.js";
import { NOTE_C_TIMING } from "../../harness/host/NoteCTiming.js";
import { SerialHostTransport } from "../../harness/host/SerialHostTransport.js";
import { MemoryLink } from "../../hil/links/MemoryLink.js";

/** The requests the host makes, in order: small and large, so that segments and retries happen. */
const requests = Array.from({ length: 16 }, (_, i) => ({
  req: "echo",
  text: `m${i}:` + "r".repeat((i * 97) % 700),
}));

async function impairedSession() {
  const sc = await Scenario.start({
    seed: "impaired-6",
    timeKnown: true,
    capture: true,
    serial: {
      baud: 115_200,
      impair: {
        h2m: [{ flip: { rate: 0.0005 } }, { drop: { rate: 0.0002 } }, { split: { max: 9 } }],
        m2h: [{ flip: { rate: 0.0003 } }, { insert: { at: 40, bytes: "7e7e" } }],
      },
    },
  });
  const host = sc.attachNoteC();
  const replies = [];
  for (const [i, req] of requests.entries()) {
    replies.push(await host.request(req));
    if (i === 7) await sc.world.inboundNote("commands.qi", { body: { go: i } });
  }
  return { sc, host, replies };
}

describe("a complete scenario: a note-c host on an impaired serial link", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it("resyncs after corruption and gets every request through, and the capture replays to the same replies", async () => {
    const run = await impairedSession();
    sc = run.sc;
    // Every request got its own reply despite the damage.
    expect(run.replies).toEqual(requests.map((r) => ({ text: r.text })));
    // The damage happened, and the host recovered the note-c way.
    const retries = run.host.events.filter((e) => e.event === "retry");
    expect(retries.length).toBeGreaterThanOrEqual(5);
    expect(run.host.noteC.stats.failures).toBe(0);
    expect(sc.capture!.entries.filter((e) => e.kind === "impair").length).toBeGreaterThan(3);
    // Each request reached the module intact at least once. The other lines are attempts the
    // wire damaged (answered {io}) and retries after a damaged reply (the same request again).
    for (const req of requests) await sc.expectHostRequest((r) => r["text"] === req.text);
    const others = sc.traffic.unconsumed();
    expect(others.length).toBeGreaterThan(0);
    const texts = new Set(requests.map((r) => r.text));
    for (const line of others) {
      if (line.reply?.includes("{io}")) continue;
      expect(texts.has(String(line.request?.["text"])), `${line.text} ${line.reply}`).toBe(true);
    }
    sc.ignore(() => true);
    const capture = parseCapture(sc.capture!.toJsonl());
    await sc.finish();
    sc = undefined;

    const replay = await replayHostTraffic(capture);
    expect(replay.same, describeDifferences(replay.differences)).toBe(true);
    expect(replay.actual.length).toBeGreaterThan(requests.length);
  });

  it("the same seed gives the same session, byte for byte", async () => {
    const a = await impairedSession();
    const textA = a.sc.capture!.toJsonl();
    await a.sc.close();
    const b = await impairedSession();
    sc = b.sc;
    expect(b.sc.capture!.toJsonl()).toBe(textA);
  });

  it("a replay into a module that answers differently names the lines that differ", async () => {
    const run = await impairedSession();
    run.sc.ignore(() => true);
    const text = run.sc.capture!.toJsonl();
    await run.sc.finish();
    // Pretend the captured module had answered the first echo differently.
    const tampered = text.replace(
      /"link":"serial\.module","dir":"m2h","kind":"bytes","hex":"7b2274657874223a226d30/,
      (m) => m.replace(/7b2274657874223a226d30$/, "7b2274657874223a226d31"),
    );
    expect(tampered).not.toBe(text);
    const replay = await replayHostTraffic(parseCapture(tampered));
    expect(replay.same).toBe(false);
    expect(replay.differences).toHaveLength(1);
    expect(describeDifferences(replay.differences)).toMatch(
      /^line \d+: expected "\{\\"text\\":\\"m1:.*got "\{\\"text\\":\\"m0:/,
    );
  });

  it("the captured module traffic replays into a host under test, which sends the same lines", async () => {
    const run = await impairedSession();
    run.sc.ignore(() => true);
    const capture = parseCapture(run.sc.capture!.toJsonl());
    await run.sc.finish();

    // A fresh note-c host, talking to a scripted module that plays back what the host saw.
    const clock = new FakeClock();
    const driver = new VirtualTimeDriver(clock);
    const [hostEnd, moduleEnd] = MemoryLink.pair();
    const module = new CapturedModule(capture, moduleEnd, clock);
    const host = new NoteCHost({
      clock,
      transport: new SerialHostTransport(hostEnd, clock, NOTE_C_TIMING, { txBaud: 115_200 }),
    });
    const replies = [];
    for (const req of requests) replies.push(await driver.run(host.request(req), 600_000, "a host request"));
    expect(replies).toEqual(run.replies);
    await driver.run(module.finished, 60_000, "the playback to end");
    const compared = module.compare();
    expect(compared.same, describeDifferences(compared.differences)).toBe(true);

    // A host that behaves differently (no request CRC) is caught.
    const [h2, m2] = MemoryLink.pair();
    const clock2 = new FakeClock();
    const module2 = new CapturedModule(capture, m2, clock2);
    const other = new NoteCHost({
      clock: clock2,
      transport: new SerialHostTransport(h2, clock2, NOTE_C_TIMING),
      crc: false,
    });
    await new VirtualTimeDriver(clock2)
      .run(other.request(requests[0]!), 600_000, "a request")
      .catch(() => undefined);
    expect(module2.compare().same).toBe(false);
    module2.dispose();
  });
});
