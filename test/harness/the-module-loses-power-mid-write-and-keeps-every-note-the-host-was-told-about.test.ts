import { afterEach, describe, expect, it } from "vitest";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";
import { POWER_LOSS_MODES } from "../../firmware/storage/flash/PowerLossFlashFs.js";
import { Scenario } from "../../harness/Scenario.js";

const seqs = (sc: Scenario, file: string) =>
  [...(sc.module.notebox.file(file)?.notes.values() ?? [])].map((n) => (n.body as { seq: number }).seq);

describe("power loss of the module in the middle of a flash write", () => {
  let sc: Scenario | undefined;
  afterEach(async () => {
    await sc?.close();
    sc = undefined;
  });

  it.each(POWER_LOSS_MODES)(
    "%s: every note the host was told about survives, and note-c's retry stores the lost one",
    async (mode) => {
      sc = await Scenario.start({ flash: true, timeKnown: true, capture: true, seed: `power-${mode}` });
      const host = sc.attachNoteC();
      for (let seq = 0; seq < 3; seq++) {
        expect(await host.request({ req: "note.add", file: "sensors.qo", body: { seq } })).toEqual({
          total: seq + 1,
        });
      }
      // The power goes during the next flash write: the commit of the next note.add.
      await sc.world.powerLossAt(1, { mode, offMs: 2000 });
      const reply = host.request({ req: "note.add", file: "sensors.qo", body: { seq: 3 } });
      await sc.expectPowerLoss({ timeout: 60_000 });
      expect(sc.powerLosses).toBe(1);
      const answer = await reply;
      expect(answer["total"]).toBeGreaterThanOrEqual(4);
      // The module never answered the interrupted request; note-c timed out, reset and retried.
      expect(host.noteC.stats).toMatchObject({ failures: 0 });
      expect(host.noteC.stats.retries).toBeGreaterThanOrEqual(1);
      // What the flash kept decides the rest: a dropped write is stored once by the retry; a torn
      // one is cut at boot (the module reports the repair in _health.qo); a write that reached the
      // medium although the module never acknowledged it is stored again by the retry.
      const expected = {
        "drop-unsynced": { stored: [0, 1, 2, 3], repaired: false },
        "torn-write": { stored: [0, 1, 2, 3], repaired: true },
        "rename-lost": { stored: [0, 1, 2, 3, 3], repaired: false },
      }[mode];
      expect(seqs(sc, "sensors.qo")).toEqual(expected.stored);
      expect(sc.module.notebox.file("_health.qo") !== undefined).toBe(expected.repaired);
      expect(sc.capture!.entries.some((e) => e.info?.["event"] === "power-loss")).toBe(true);
      sc.ignore(() => true);
      const capture = parseCapture(sc.capture!.toJsonl());
      await sc.finish();
      sc = undefined;
      // The power loss is part of the capture: a replay loses power at the same write.
      const replay = await replayHostTraffic(capture);
      expect(replay.same, describeDifferences(replay.differences)).toBe(true);
    },
  );

  it("a power loss between requests loses nothing the module acknowledged", async () => {
    sc = await Scenario.start({ flash: true, timeKnown: true });
    const host = sc.attachNoteC();
    for (let seq = 0; seq < 5; seq++)
      await host.request({ req: "note.add", file: "sensors.qo", body: { seq } });
    await sc.world.powerLoss({ mode: "torn-write" });
    expect(seqs(sc, "sensors.qo")).toEqual([0, 1, 2, 3, 4]);
    expect(await host.request({ req: "file.changes", files: ["sensors.qo"] })).toMatchObject({
      info: { "sensors.qo": { total: 5 } },
    });
    sc.ignore(() => true);
    await sc.finish();
  });

  it("says what it needs: the power-loss flash", async () => {
    sc = await Scenario.start();
    await expect(sc.world.powerLoss()).rejects.toThrow(/needs the power-loss flash/);
    await expect(sc.world.powerLossAt(1)).rejects.toThrow(/needs the power-loss flash/);
  });
});
