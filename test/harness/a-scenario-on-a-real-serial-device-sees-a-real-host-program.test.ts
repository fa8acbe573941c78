import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Scenario, ScenarioFailure } from "../../harness/Scenario.js";
import { ScenarioTimeout } from "../../harness/TimeDriver.js";
import { HostLineClient } from "../../hil/HostLineClient.js";
import { PtyPair } from "../../hil/links/PtyPair.js";

/**
 * The rig setup: the scenario's module serves a real serial device (here one end of a pty pair,
 * on a Pi /dev/ttyAMA0), and the host is whatever program or MCU is on the other end. Time is real.
 */
describe.skipIf(!PtyPair.available())("a scenario on a real serial device", () => {
  let dir: string;
  let pair: PtyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-rig-"));
    pair = await PtyPair.open(join(dir, "module"), join(dir, "mcu"));
  });

  afterAll(async () => {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("expects the host's requests in real time and fails what it did not expect", async () => {
    const sc = await Scenario.start({ serial: { device: `${pair.a}@115200` }, capture: true });
    expect(sc.driver.virtual).toBe(false);
    expect(() => sc.attachNoteC()).toThrow(/real device/);
    const mcu = await HostLineClient.serial(pair.b);
    const reply = mcu.transaction('{"req":"env.set","name":"rig","text":"1"}', { crc: true });
    const line = await sc.expectHostRequest((r) => r["req"] === "env.set", { timeout: 5000 });
    expect(line.crcSequence).toBe(0);
    // env.set.rsp requires `time`: 0 while the module has dated nothing.
    expect(await reply).toMatch(/^\{"time":0,"crc":"0000:[0-9A-F]{8}"\}$/);
    await expect(sc.expectHostRequest((r) => r["req"] === "never", { timeout: 200 })).rejects.toBeInstanceOf(
      ScenarioTimeout,
    );
    await mcu.transaction('{"req":"echo","text":"unexpected"}');
    await mcu.close();
    const failure = (await sc.finish().catch((e: unknown) => e)) as ScenarioFailure;
    expect(failure).toBeInstanceOf(ScenarioFailure);
    expect(failure.problems).toEqual([expect.stringMatching(/host line nobody expected: .*"unexpected"/)]);
    rmSync(failure.capturePath!);
  });
});

describe.runIf(!PtyPair.available())("a scenario on a real serial device", () => {
  it("is skipped: socat is not installed (apt-get install socat)", () => {
    expect(PtyPair.available()).toBe(false);
  });
});
