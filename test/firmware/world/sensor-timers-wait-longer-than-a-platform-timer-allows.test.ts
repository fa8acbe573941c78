import { describe, expect, it } from "vitest";
import { MAX_TIMER_MS, SensorTimer } from "../../../firmware/sensors/SensorTimer.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootInWorld, notesOf } from "../../support/worldFixture.js";

const DAY = 86_400_000;

describe("sensor timers", () => {
  it("fire once, on time, even months ahead, and can be replaced or cleared", async () => {
    const clock = new FakeClock();
    const timer = new SensorTimer(clock);
    const fired: number[] = [];
    const start = clock.now();
    timer.set(90 * DAY, () => fired.push(clock.now() - start));
    expect(90 * DAY).toBeGreaterThan(MAX_TIMER_MS);
    await clock.advance(89 * DAY);
    expect(fired).toEqual([]);
    await clock.advance(2 * DAY);
    expect(fired).toEqual([90 * DAY]);
    timer.set(1000, () => fired.push(-1));
    timer.set(2000, () => fired.push(-2));
    timer.clear();
    await clock.advance(5000);
    expect(fired).toEqual([90 * DAY]);
    expect(timer.pending).toBe(false);
  });

  it("let a module log temperature every 60 days", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "card.temp", minutes: 60 * 24 * 60 });
    await clock.advance(59 * DAY);
    expect(notesOf(t, "_temp.qo")).toHaveLength(0);
    await clock.advance(2 * DAY);
    expect(notesOf(t, "_temp.qo")).toHaveLength(1);
  });
});
