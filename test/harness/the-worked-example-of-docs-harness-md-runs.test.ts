// This file is the worked example of docs/harness.md, verbatim: keep the two in step (a test
// checks it). It imports what a firmware team imports once cardsim is installed; in this
// repository vitest.config.ts and tsconfig.json map `cardsim/harness` to harness/index.ts.
import { expect, it } from "vitest";
import { parseCapture, replayHostTraffic, Scenario } from "cardsim/harness";

it("a host picks up a new reporting interval from the hub over a noisy 9600-baud link", async () => {
  // A module on a virtual clock, wired to its host by a 9600-baud serial link that flips a bit
  // in the host's first request and delivers the module's output in small pieces.
  const sc = await Scenario.start({
    seed: 42,
    timeKnown: true,
    capture: true,
    serial: {
      baud: 9600,
      impair: { h2m: [{ flip: { at: 30, mask: 0x04 } }], m2h: [{ split: { max: 16 } }] },
    },
  });
  const host = sc.attachNoteC(); // note-c's timing: resets, 250-byte segments, CRC, retries

  // The hub delivers a fleet variable; the host reads it the way its firmware would.
  await sc.world.hubEnv({ fleet: { interval: "60" } });
  expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "60" });

  // The first attempt was damaged on the wire: the module said {io}, note-c retried 500 ms later.
  const damaged = await sc.expectHostRequest((r) => r["req"] === "env.get" && r["name"] !== "interval");
  expect(damaged.crcOk).toBe(false);
  expect(damaged.reply).toMatch(/\{io\}/);
  const retry = await sc.expectHostRequest((r) => r["req"] === "env.get");
  expect(retry.crcSequence).toBe(damaged.crcSequence);

  // Half an hour later the hub changes it; the host polls again.
  await sc.advance(30 * 60_000);
  await sc.world.hubEnv({ fleet: { interval: "15" } });
  expect(await host.request({ req: "env.get", name: "interval" })).toMatchObject({ text: "15" });
  await sc.expectHostRequest((r) => r["req"] === "env.get");

  sc.expectPacedSegments(); // every line the host sent was paced like note-c
  const capture = parseCapture(sc.capture!.toJsonl());
  await sc.finish(); // fails if the host sent anything nobody expected

  // The capture replays into a fresh module to the very same replies.
  const replay = await replayHostTraffic(capture);
  expect(replay.same).toBe(true);
});
