import { describe, expect, it } from "vitest";
import { BinaryBuffer } from "../../firmware/BinaryBuffer.js";
import { KEEP_HOURS, VoltageMonitor } from "../../firmware/power/VoltageMonitor.js";
import type { PowerSource } from "../../firmware/PowerSource.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { retainedBytesEach } from "../support/retainedHeap.js";

const HOUR = 3_600_000;
const MONITORS = 2000;

/** A battery whose voltage falls a little every observation: each hour has a reading. */
function battery(): PowerSource {
  let volts = 3.9;
  return { voltage: () => (volts -= 0.0001), usb: () => false };
}

/** A monitor after `hours` of observations, one every 15 minutes. */
function monitorAfter(hours: number): (i: number) => VoltageMonitor {
  return () => {
    const clock = new FakeClock();
    const monitor = new VoltageMonitor(clock, battery());
    for (let q = 0; q < hours * 4; q++) {
      // Time moves by hand (no timer runs): the monitor reads the clock when observed.
      (clock as unknown as { now: () => number }).now = (
        (t) => () =>
          t
      )(clock.now() + HOUR / 4);
      monitor.observe();
    }
    return monitor;
  };
}

describe("a module's memory stays bounded", () => {
  it("a voltage monitor's hourly ring holds a day in about 48 numbers, not the 1,444 of a month", async () => {
    const day = await retainedBytesEach(MONITORS, monitorAfter(24));
    const month = await retainedBytesEach(200, monitorAfter(KEEP_HOURS + 48));
    expect(day).toBeLessThan(2 * 1024);
    // The ring stops growing at KEEP_HOURS: a month or more holds 1,444 numbers (11.3 KiB) and
    // not more however long the module runs.
    expect(month).toBeGreaterThan(2 * KEEP_HOURS * 8);
    expect(month).toBeLessThan(2 * KEEP_HOURS * 8 + 8 * 1024);
  });

  it("a binary buffer never written takes no room, and one written takes what it holds", async () => {
    const unused = await retainedBytesEach(MONITORS, () => new BinaryBuffer());
    expect(unused).toBeLessThan(512);
    const written = await retainedBytesEach(200, () => {
      const buffer = new BinaryBuffer();
      buffer.write(0, new Uint8Array(10_000).fill(7));
      return buffer;
    });
    expect(written).toBeGreaterThan(10_000);
    expect(written).toBeLessThan(2 * 10_000 + 1024);
  });
});
