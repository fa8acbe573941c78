import type { HubStore } from "../../../../../hub/store/HubStore.js";
import type { DeviceRecord, EventRecord } from "../../../../../hub/store/records.js";

export const T0 = Date.UTC(2026, 0, 1);
export const USER = "user:1";
export const ORG = "org:1";
export const PROJECT = "app:00000000-0000-4000-8000-000000000001";
export const OTHER_PROJECT = "app:00000000-0000-4000-8000-000000000002";
export const PRODUCT = "product:test.cardsim:thing";

/** A user, an organization, two projects and a product: what most store records hang from. */
export async function seedProject(store: HubStore): Promise<void> {
  await store.accounts.createUser({
    uid: USER,
    username: "Ada@Example.com",
    name: "Ada",
    email: "ada@example.com",
    passwordHash: "hash",
    staff: false,
    created: T0,
  });
  await store.accounts.createOrganization({
    uid: ORG,
    name: "Org",
    ownerUid: USER,
    email: "ada@example.com",
    contactUid: USER,
    suspended: false,
    planType: "Essentials",
    eventCapacity: 5000,
    planStart: T0,
    planEnd: null,
    created: T0,
  });
  for (const [uid, created] of [
    [PROJECT, T0],
    [OTHER_PROJECT, T0 + 1],
  ] as const) {
    await store.projects.createProject({
      uid,
      label: uid === PROJECT ? "P" : "Q",
      orgUid: ORG,
      created,
      administrativeContact: null,
      technicalContact: null,
    });
  }
  await store.projects.createProduct({
    uid: PRODUCT,
    projectUid: PROJECT,
    label: "Thing",
    disableDevicesByDefault: false,
    autoProvisionFleets: null,
    created: T0,
  });
}

/** Device `dev:<n>` of PROJECT. */
export function putDevice(
  store: HubStore,
  n: number,
  extra: Partial<DeviceRecord> = {},
): Promise<DeviceRecord> {
  return store.devices.putDevice({
    uid: `dev:${n}`,
    projectUid: PROJECT,
    productUid: PRODUCT,
    provisioned: T0,
    ...extra,
  });
}

/** An event of `dev:1` in PROJECT (override any field). */
export function anEvent(uid: string, extra: Partial<EventRecord> = {}): EventRecord {
  return {
    uid,
    projectUid: PROJECT,
    deviceUid: "dev:1",
    sessionUid: null,
    file: "data.qo",
    received: T0 / 1000,
    whenSec: T0 / 1000,
    data: { n: 1 },
    ...extra,
  };
}
