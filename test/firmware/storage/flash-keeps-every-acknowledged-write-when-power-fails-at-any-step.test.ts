import { describe, expect, it } from "vitest";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import {
  POWER_LOSS_MODES,
  PowerLossFlashFs,
  type PowerLossMode,
} from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { Notebox } from "../../../firmware/storage/Notebox.js";
import {
  applyOps,
  canonical,
  runScenario,
  SCENARIO_OPTIONS,
  type ScenarioRun,
} from "./support/crashScenario.js";

/** Where a torn write stops: nothing of it, one byte, inside the frame header, half, all but one. */
const TEARS: readonly ((length: number) => number)[] = [
  () => 0,
  () => 1,
  (n) => Math.min(n, 13),
  (n) => n >> 1,
  (n) => n - 1,
];

/** Opens the flash after the power came back and checks what a module would find. */
async function checkRecovered(fs: PowerLossFlashFs, run: ScenarioRun, where: string): Promise<void> {
  const store = new FlashKvStore(fs, SCENARIO_OPTIONS);
  const snapshot = await store.open();
  const got = canonical(snapshot.records);
  const before = canonical(run.acknowledged);
  let after = before;
  if (run.inflight) {
    const done = new Map(run.acknowledged);
    applyOps(done, run.inflight);
    after = canonical(done);
  }
  // Every acknowledged write is there; the write in flight is there whole or not at all.
  if (got !== before && got !== after) {
    expect.fail(`${where}: flash holds neither the acknowledged state nor that plus the write in flight`);
  }
  // Recovery leaves nothing half done behind it.
  const files = await fs.list();
  expect(
    files.filter((f) => f.endsWith(".tmp")),
    where,
  ).toEqual([]);
  expect(files.filter((f) => f.startsWith("journal.") && !f.endsWith(".damaged")).length, where).toBe(1);

  // The module's state decodes, and the flash takes new writes that survive a reboot.
  const box = await Notebox.open(store);
  await box.transact(() => box.setConfig("after-crash", { ok: true }));
  await store.close();
  const again = new FlashKvStore(fs, SCENARIO_OPTIONS);
  const reopened = await again.open();
  expect(reopened.recovery, where).toBeUndefined();
  expect(reopened.records.has("c\u001fafter-crash"), where).toBe(true);
  await again.close();
}

/** Every step at which the scenario itself can lose power. */
async function scenarioSteps(): Promise<number> {
  const fs = new PowerLossFlashFs();
  const run = await runScenario(fs);
  expect(run.crashed).toBe(false);
  return fs.steps;
}

/** The power fails again while the flash is repairing itself after the first failure. */
async function checkRecoveryInterrupted(
  crashed: PowerLossFlashFs,
  mode: PowerLossMode,
  run: ScenarioRun,
  where: string,
) {
  const probe = crashed.clone();
  const start = probe.steps;
  await new FlashKvStore(probe, SCENARIO_OPTIONS).open();
  const repairSteps = probe.steps - start;
  for (let j = 1; j <= repairSteps; j++) {
    const fs = crashed.clone();
    fs.failAtStep(start + j);
    await expect(new FlashKvStore(fs, SCENARIO_OPTIONS).open()).rejects.toThrow();
    fs.powerUp(mode);
    await checkRecovered(fs, run, `${where}, then again at repair step ${j}`);
  }
}

describe("a flash losing power at any write step", () => {
  for (const mode of POWER_LOSS_MODES) {
    it(`keeps every acknowledged write and stays writable (${mode})`, async () => {
      const steps = await scenarioSteps();
      expect(steps).toBeGreaterThan(60);
      let checked = 0;
      for (let step = 1; step <= steps; step++) {
        const fs = new PowerLossFlashFs();
        fs.failAtStep(step);
        const run = await runScenario(fs);
        expect(run.crashed, `step ${step}`).toBe(true);
        const tears = mode === "torn-write" ? TEARS : [undefined];
        for (const [t, tear] of tears.entries()) {
          const where = `${mode}, power lost at step ${step}${tear ? `, tear ${t}` : ""}`;
          const recovered = fs.clone();
          recovered.powerUp(mode, tear ? { tear } : {});
          const untouched = recovered.clone();
          await checkRecovered(recovered, run, where);
          await checkRecoveryInterrupted(untouched, mode, run, where);
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(steps);
    }, 120_000);
  }
});
