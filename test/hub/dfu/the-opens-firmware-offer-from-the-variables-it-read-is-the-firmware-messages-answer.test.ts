import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DfuDevice } from "../../../hub/dfu/DfuService.js";
import type { EnvScope } from "../../../hub/store/records.js";
import { newFleet } from "../../../hub/store/records.js";
import { deviceVariables, variableOf } from "../../../hub/sync/deviceEnvironment.js";
import type { ProtocolReply } from "../../../protocol/messages.js";
import { TestHub } from "../support/hubFixture.js";
import { hostFirmware } from "./support/hostFirmware.js";

// An open that asks for the firmware offer is answered from the device record and variables the
// open already read (DfuService.offer): from two reads when nothing would be offered or changed,
// else as the `firmware` message is. Whatever the variables and the requests before, the offer and
// the message give the same answer and leave the same requests.

let hub: TestHub;
let who: DfuDevice;
let images: string[];
const FLEETS = ["fleet:b", "fleet:a"];

beforeAll(async () => {
  hub = await TestHub.start();
  const device = await hub.device();
  who = { deviceUid: device.uid, projectUid: hub.projectUid };
  for (const uid of FLEETS) {
    await hub.store.projects.createFleet(
      newFleet({ uid, projectUid: hub.projectUid, label: uid, created: hub.clock.now() }),
    );
  }
  await hub.store.devices.addToFleets(device.uid, FLEETS);
  images = [];
  for (const [i, name] of ["a.bin", "b.bin"].entries()) {
    const bytes = hostFirmware(3000 + i, { version: `2.${i}.0`, product: "Pump" });
    const res = await hub.request("PUT", hub.p(`/firmware/host/${name}`), {
      payload: bytes,
      contentType: "application/octet-stream",
    });
    expect(res.status).toBe(200);
    images.push(res.json.filename as string);
  }
});
afterAll(async () => {
  expect(hub.violations).toEqual([]);
  await hub.close();
});

const scopes = (): EnvScope[] => [
  { kind: "device", uid: who.deviceUid },
  ...FLEETS.map((uid): EnvScope => ({ kind: "fleet", uid })),
  { kind: "project", uid: who.projectUid },
];

/** Per scope, per variable: unset, blank, an image that exists, or one that does not. */
const valueArb = (): fc.Arbitrary<string | undefined> =>
  fc.constantFrom(undefined, "", "  ", "missing.bin", ...images, ` ${images[0]} `);
const envArb = () =>
  fc.array(fc.record({ _fw: valueArb(), _fwc: valueArb() }), { minLength: 4, maxLength: 4 });
type Env = { _fw: string | undefined; _fwc: string | undefined }[];

async function setEnv(env: Env): Promise<void> {
  for (const [i, scope] of scopes().entries()) {
    for (const key of ["_fw", "_fwc"] as const) {
      const value = env[i]![key];
      if (value === undefined) await hub.store.env.delete(scope, key);
      else await hub.store.env.set(scope, { [key]: value }, hub.clock.now());
    }
  }
}

const firmware = () => hub.services.dfu.handleSyncMessage(who, { type: "firmware" });

/** What `answer` replies and the requests it leaves, in a transaction then rolled back. */
async function tried(answer: () => Promise<ProtocolReply>): Promise<unknown> {
  const undo = new Error("undo");
  let seen: unknown;
  await hub.store
    .transaction(async () => {
      const reply = await answer();
      const requests = [];
      for (const type of ["host", "notecard"] as const)
        requests.push(await hub.store.firmware.listRequests(who.projectUid, who.deviceUid, type));
      seen = { reply, requests };
      throw undo;
    })
    .catch((error: unknown) => {
      if (error !== undo) throw error;
    });
  return seen;
}

describe("the open's firmware offer", () => {
  it("is the firmware message's answer, with the same requests left, for any variables and history", async () => {
    let quiet = 0;
    await fc.assert(
      fc.asyncProperty(envArb(), envArb(), fc.boolean(), async (before, now, answeredBefore) => {
        // The requests as an earlier session left them (opened, failed, cancelled, or none).
        await setEnv(before);
        if (answeredBefore) await firmware();
        await setEnv(now);
        const device = (await hub.store.devices.getDevice(who.deviceUid))!;
        const offered = await tried(async () => {
          const vars = await deviceVariables(hub.store, device);
          return hub.services.dfu.offer(device, (key) => variableOf(vars, key));
        });
        const answered = await tried(firmware);
        expect(offered).toEqual(answered);
        if (Object.keys((answered as { reply: object }).reply).length === 1) quiet++;
      }),
      { seed: 26, numRuns: 60 },
    );
    // Both ways were taken: offers of nothing, and offers that open or end requests.
    expect(quiet).toBeGreaterThan(0);
    expect(quiet).toBeLessThan(60);
  });

  it("reads a variable as the firmware requests do: own, then fleets in UID order, then project, blanks unset", async () => {
    await setEnv([
      { _fw: " ", _fwc: undefined },
      { _fw: "from-b.bin", _fwc: undefined },
      { _fw: "from-a.bin", _fwc: "" },
      { _fw: "from-project.bin", _fwc: "project.bin" },
    ]);
    const device = (await hub.store.devices.getDevice(who.deviceUid))!;
    const vars = await deviceVariables(hub.store, device);
    expect(variableOf(vars, "_fw")).toBe("from-a.bin");
    expect(variableOf(vars, "_fwc")).toBe("project.bin");
    expect(variableOf(vars, "_other")).toBeUndefined();
  });
});
