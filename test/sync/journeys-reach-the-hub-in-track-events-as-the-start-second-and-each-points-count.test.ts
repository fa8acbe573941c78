/**
 * Journeys as the hub receives them, on the fake clock: what the hub's journeys API
 * (GetDeviceJourneys / GetDeviceJourney, "derived from `_track.qo` events") reads. References:
 * - card.location.mode.rsp.notecard.api.json `journey`: "`true` if a journey is currently in
 *   progress ... The Notecard tracks journeys when `mode` is set to `continuous` or to `periodic`
 *   with `seconds` less than 300. See `_track.qo` for details on the `journey` and `jcount`
 *   fields included in tracking Notes."
 * - reference/notecard-behavior.md: card.location.track reply `journey`:boolean.
 * - docs/world.md "Journeys": `journey` is the epoch second the journey began (its first fix),
 *   `jcount` the note's count within it, from 1.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { World } from "../../firmware/world/World.js";
import { SyncWorld } from "./support/syncWorld.js";

const MINUTE = 60_000;
const HERE = { lat: 42.5584, lon: -70.88 };

describe("journeys in _track.qo events", () => {
  let w: SyncWorld;
  beforeEach(async () => {
    w = await SyncWorld.start("in-process");
  });
  afterEach(async () => w.close());

  it("each journey's events share its start second; jcount counts 1, 2, 3 ...; the replies say when one is under way", async () => {
    const world = new World({ clock: w.clock, position: HERE });
    const sim = await w.module({ world });
    await w.req(sim, { req: "card.location.mode", mode: "periodic", seconds: 60 });
    await w.req(sim, { req: "card.location.track", start: true });
    await w.clock.advance(MINUTE); // the first fix, not moving: no journey
    expect(await w.req(sim, { req: "card.location.mode" })).not.toHaveProperty("journey");

    const starts: number[] = [];
    for (const minutes of [5, 3]) {
      world.setMotion("moving");
      starts.push(w.clock.now());
      await w.clock.advance(minutes * MINUTE);
      expect(await w.req(sim, { req: "card.location.mode" })).toMatchObject({ journey: true });
      expect(await w.req(sim, { req: "card.location.track" })).toMatchObject({ journey: true });
      world.setMotion("still");
      await w.clock.advance(10 * MINUTE);
      expect(await w.req(sim, { req: "card.location.track" })).not.toHaveProperty("journey");
    }
    await w.sync(sim);

    const events = (await w.events(sim, { system: true })).filter((e) => e.file === "_track.qo");
    const journeys = new Map<number, { jcount: number; fix: number }[]>();
    for (const e of events) {
      const body = e.data["body"] as Record<string, number>;
      if (body["journey"] === undefined) continue;
      const points = journeys.get(body["journey"]) ?? [];
      points.push({ jcount: body["jcount"]!, fix: e.data["where_when"] as number });
      journeys.set(body["journey"], points);
    }
    expect(journeys.size).toBe(2);
    const [first, second] = [...journeys.entries()].sort(([a], [b]) => a - b);
    for (const [[journey, points], startedMs] of [
      [first!, starts[0]!],
      [second!, starts[1]!],
    ] as const) {
      // The journey is the epoch second of its first fix, taken once the module moved.
      expect(journey).toBe(points[0]!.fix);
      expect(journey * 1000).toBeGreaterThanOrEqual(startedMs);
      // ... at the next sample (a period of 60 s) and a hot fix (5 s) after the motion began.
      expect(journey * 1000).toBeLessThanOrEqual(startedMs + MINUTE + 5000);
      expect(points.map((p) => p.jcount)).toEqual(points.map((_, i) => i + 1));
      // Points of a journey come in order, never before it began.
      expect(points.every((p, i) => p.fix >= journey && (i === 0 || p.fix > points[i - 1]!.fix))).toBe(true);
    }
    expect(first![1].length).toBeGreaterThanOrEqual(5);
    expect(second![1].length).toBeGreaterThanOrEqual(3);
  });
});
