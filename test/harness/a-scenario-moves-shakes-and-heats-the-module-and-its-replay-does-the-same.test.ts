import { afterEach, expect, it } from "vitest";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";
import { Scenario } from "../../harness/Scenario.js";
import { Track } from "../../firmware/world/Track.js";

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

it("a host reads the module's place, motion, temperature and AUX pin as the scenario sets them, and a replay reads the same", async () => {
  sc = await Scenario.start({ timeKnown: true, capture: true, seed: "physical" });
  const host = sc.attachNoteC();
  await host.request({ req: "card.location.mode", mode: "continuous" });
  await host.request({ req: "card.motion.mode", start: true });
  await host.request({ req: "card.aux", mode: "gpio", usage: ["", "", "", "input"] });

  await sc.world.moveTo({ lat: 52.52, lon: 13.405 });
  await sc.advance(120_000);
  const here = await host.request({ req: "card.location" });
  expect(here).toMatchObject({ lat: 52.52, lon: 13.405 });

  await sc.world.playTrack(
    Track.fromPoints([
      { lat: 52.52, lon: 13.405, time: 0 },
      { lat: 52.53, lon: 13.405, time: 600_000 },
    ]),
  );
  await sc.advance(300_000);
  const moving = await host.request({ req: "card.location" });
  expect(moving["lat"] as number).toBeGreaterThan(52.52);

  await sc.world.shake(3);
  expect((await host.request({ req: "card.motion" }))["count"]).toBeGreaterThanOrEqual(3);
  await sc.world.temperature(41.5);
  expect((await host.request({ req: "card.temp" }))["value"]).toBeCloseTo(41.5, 0);
  await sc.world.driveAux(4, true);
  expect(await host.request({ req: "card.aux", mode: "gpio" })).toMatchObject({
    state: [{}, {}, {}, { high: true }],
  });

  const physical = sc.capture!.entries.filter((e) => e.kind === "world").map((e) => e.info?.["op"]);
  expect(physical).toEqual(["setPosition", "playTrack", "shake", "setTemperature", "driveAux"]);
  sc.ignore(() => true);
  const capture = parseCapture(sc.capture!.toJsonl());
  await sc.finish();
  sc = undefined;
  const replay = await replayHostTraffic(capture);
  expect(replay.same, describeDifferences(replay.differences)).toBe(true);
});
