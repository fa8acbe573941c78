import { afterEach, describe, expect, it } from "vitest";
import { moduleFirmwareImage } from "../../../firmware/dfu/ModuleFirmwareImage.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootDfuModule } from "../../firmware/dfu/support/dfuModule.js";
import { DfuBridgeHub } from "./support/DfuBridgeHub.js";

/**
 * Module firmware through the hub's own DFU service: images uploaded as `notecard` firmware,
 * `_fwc` set for the project, and every module of the fleet takes it at its next session, installs
 * it and restarts into it; the hub's history says so. The modules reach the hub through
 * `bootDfuModule({ link })`: the same test runs over the real sync service by passing its link.
 */
const V94 = { major: 9, minor: 4, patch: 0, build: 17500, built: "Jan 15 2026 10:00:00" };
const V95 = { major: 9, minor: 5, patch: 2, build: 17777, built: "Mar 02 2026 08:30:00" };

let hub: DfuBridgeHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe("a fleet of modules and the hub's _fwc", () => {
  it("moves every module to the release _fwc names, up and back down, with the hub's history complete", async () => {
    const clock = new FakeClock();
    hub = await DfuBridgeHub.start(clock);
    const fleet: Awaited<ReturnType<typeof bootDfuModule>>[] = [];
    for (const seed of [1, 2, 3]) {
      fleet.push(await bootDfuModule({ link: hub.link(), clock, seed, product: hub.productUid }));
    }
    for (const m of fleet) await m.sync(); // each registers
    const versions = async () =>
      Promise.all(fleet.map(async (m) => (await m.req({ req: "card.version" }))["version"]));
    expect(await versions()).toEqual(Array(3).fill("notecard-9.3.1.17434"));

    for (const release of [V95, V94]) {
      await clock.advance(1000);
      const name = await hub.upload(
        "notecard",
        "notecard-u5.bin",
        moduleFirmwareImage({ target: "u5", release }),
      );
      await hub.store.env.set({ kind: "project", uid: hub.projectUid }, { _fwc: name }, clock.now());
      for (const m of fleet) await m.sync();
      const expected = `notecard-${release.major}.${release.minor}.${release.patch}.${release.build}`;
      expect(await versions()).toEqual(Array(3).fill(expected));
      for (const m of fleet) {
        const { request, record, log } = await hub.dfuOf("notecard", m.module.deviceUid);
        expect(request).toMatchObject({ filename: name, state: "completed", source: "env" });
        expect(request!.updates.map((u) => u.phase)).toEqual([
          "requested",
          "downloading",
          "ready",
          "completed",
        ]);
        expect(record).toMatchObject({ card: { mode: "completed", version: expected } });
        expect(log.at(0)?.text).toBe(`notecard firmware update completed: ${name} (${expected})`);
      }
    }
    for (const m of fleet) await m.sim.close();
  });
});
