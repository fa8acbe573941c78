import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../hub/ServiceError.js";
import { TestServices } from "./support/servicesFixture.js";

const DEVICE = "dev:864475040000001";
const FIRMWARE = JSON.stringify({ version: "notecard-8.1.3.17004", ver_major: 8, ver_minor: 1 });

/** The code of the ServiceError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return `${error.code} ${error.subject}`;
}

describe("the device service", () => {
  let t: TestServices;

  beforeEach(async () => {
    t = await TestServices.start();
  });

  afterEach(async () => {
    await t.close();
  });

  const register = (fields: { sku?: string; firmwareModule?: string | null; productUid?: string } = {}) =>
    t.services.devices.register({
      deviceUid: DEVICE,
      projectUid: t.projectUid,
      productUid: t.productUid,
      ...fields,
    });

  it("registers an unknown module in its product with what it reports, provisioned on the hub clock", async () => {
    await t.clock.advance(60_000);
    const device = await register({ sku: "NOTE-WBGLW", firmwareModule: FIRMWARE });
    expect(device).toMatchObject({
      uid: DEVICE,
      projectUid: t.projectUid,
      productUid: t.productUid,
      sku: "NOTE-WBGLW",
      firmwareModule: FIRMWARE,
      provisioned: t.clock.now(),
      disabled: false,
      lastActivity: null,
    });
    expect(await t.store.devices.getDevice(DEVICE)).toEqual(device);
  });

  it("applies the product's defaults to a new device: disabled, and its auto-provision fleets", async () => {
    const fleet = "fleet:00000000-0000-4000-8000-00000000000f";
    await t.store.projects.createFleet({
      uid: fleet,
      projectUid: t.projectUid,
      label: "auto",
      created: t.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    const productUid = "product:local.cardsim:strict";
    await t.store.projects.createProduct({
      uid: productUid,
      projectUid: t.projectUid,
      label: "strict",
      disableDevicesByDefault: true,
      autoProvisionFleets: [fleet],
      created: t.clock.now(),
    });
    const device = await register({ productUid });
    expect(device).toMatchObject({ disabled: true, fleetUids: [fleet] });
  });

  it("updates what a known module reports when it registers again and keeps the rest, its product too", async () => {
    const first = await register({ sku: "NOTE-NBGL", firmwareModule: FIRMWARE });
    await t.store.devices.setDisabled(DEVICE, true);
    await t.clock.advance(3_600_000);
    const productUid = "product:local.cardsim:second";
    await t.store.projects.createProduct({
      uid: productUid,
      projectUid: t.projectUid,
      label: "second",
      disableDevicesByDefault: false,
      autoProvisionFleets: null,
      created: t.clock.now(),
    });
    const again = await register({ firmwareModule: "{}", productUid });
    expect(again).toMatchObject({
      productUid: t.productUid,
      provisioned: first.provisioned,
      disabled: true,
      sku: "NOTE-NBGL",
      firmwareModule: "{}",
    });
  });

  it("refuses a product of another project and a device of another project", async () => {
    expect(await refusal(register({ productUid: "product:com.example:elsewhere" }))).toBe(
      "product-elsewhere product:com.example:elsewhere",
    );
    await register();
    const other = "app:00000000-0000-4000-8000-000000000002";
    await t.store.projects.createProject({
      uid: other,
      label: "other",
      orgUid: t.state.org_uid,
      created: t.clock.now(),
      administrativeContact: null,
      technicalContact: null,
    });
    await t.store.projects.createProduct({
      uid: "product:com.example:other",
      projectUid: other,
      label: "other",
      disableDevicesByDefault: false,
      autoProvisionFleets: null,
      created: t.clock.now(),
    });
    expect(
      await refusal(
        t.services.devices.register({
          deviceUid: DEVICE,
          projectUid: other,
          productUid: "product:com.example:other",
        }),
      ),
    ).toBe(`device-elsewhere ${DEVICE}`);
    expect(
      await refusal(t.services.devices.provision(other, DEVICE, { productUid: "product:com.example:other" })),
    ).toBe(`device-elsewhere ${DEVICE}`);
  });

  it("provisions a device ahead of its first connection, and refuses once it has connected", async () => {
    await t.clock.advance(5_000);
    const device = await t.services.devices.provision(t.projectUid, DEVICE, {
      productUid: t.productUid,
      serialNumber: "unit-1",
    });
    expect(device).toMatchObject({ serialNumber: "unit-1", provisioned: t.clock.now(), lastActivity: null });
    await t.clock.advance(5_000);
    const again = await t.services.devices.provision(t.projectUid, DEVICE, { productUid: t.productUid });
    expect(again).toMatchObject({ serialNumber: "unit-1", provisioned: device.provisioned });
    expect(
      await refusal(
        t.services.devices.provision(t.projectUid, DEVICE, {
          productUid: t.productUid,
          fleetUids: ["fleet:nope"],
        }),
      ),
    ).toBe("fleet-elsewhere fleet:nope");
    await t.store.devices.putDevice({
      uid: DEVICE,
      projectUid: t.projectUid,
      productUid: t.productUid,
      lastActivity: t.clock.now(),
    });
    expect(
      await refusal(t.services.devices.provision(t.projectUid, DEVICE, { productUid: t.productUid })),
    ).toBe(`device-active ${DEVICE}`);
  });
});
