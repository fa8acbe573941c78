import { hashDevicePin } from "../../../hub/auth/devicePin.js";
import type { TestHub } from "./hubFixture.js";

/** The seeded device's PIN, hashed once per worker (scrypt costs a fifth of a second on purpose). */
const PIN = "24681357";
let pinHash: Promise<string> | undefined;

/** Seeds what every endpoint of the table needs and returns the placeholder values. */
export async function seedForEndpoints(hub: TestHub): Promise<Record<string, string>> {
  const s = hub.store;
  const now = hub.clock.now();
  const fleet = hub.ids.fleetUid();
  const spareFleet = hub.ids.fleetUid();
  for (const uid of [fleet, spareFleet]) {
    await s.projects.createFleet({
      uid,
      projectUid: hub.projectUid,
      label: uid === fleet ? "Fleet" : "Spare",
      created: now,
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
  }
  const device = await hub.device({
    fleetUids: [fleet],
    publicKey: "-----BEGIN PUBLIC KEY-----\nMFk=\n-----END PUBLIC KEY-----\n",
  });
  await s.devices.putDevice({
    uid: device.uid,
    projectUid: device.projectUid,
    productUid: device.productUid,
    details: { pinHash: await (pinHash ??= hashDevicePin(PIN)) },
  });
  const spare = await hub.device();
  await s.projects.createProduct({
    uid: "product:com.example:spare",
    projectUid: hub.projectUid,
    label: "Spare",
    disableDevicesByDefault: false,
    autoProvisionFleets: null,
    created: now,
  });
  for (const scope of [
    { kind: "project", uid: hub.projectUid },
    { kind: "fleet", uid: fleet },
    { kind: "device", uid: device.uid },
  ] as const) {
    await s.env.set(scope, { K: "1" }, now);
  }
  for (const id of ["setting", "spare", "changes"]) {
    await s.notefiles.addNote(device.uid, "config.db", { noteId: id, body: { v: id }, payload: null }, now);
  }
  await s.notefiles.createNotefile(device.uid, "spare.db", now);
  for (const name of ["readme", "gone"]) {
    await s.descriptions.put(
      { name, contentType: "text/plain", size: 2, created: now, modified: now, createdBy: hub.users.owner! },
      new TextEncoder().encode("hi"),
    );
  }
  const event = await hub.services.events.record({
    projectUid: hub.projectUid,
    deviceUid: device.uid,
    file: "data.qo",
    data: { req: "note.add", body: { n: 1 } },
  });
  const route = await hub.services.routing.create(hub.projectUid, {
    label: "Seeded",
    type: "http",
    disabled: true,
    http: { url: "http://127.0.0.1:9/in" },
  });
  const automation = await seedMonitorAndJob(hub);
  // Webhooks, secrets and journeys (integrationRoutes.ts).
  await s.integrations.putWebhook({
    projectUid: hub.projectUid,
    id: "hook",
    disabled: false,
    transform: "",
    created: now,
    modified: now,
  });
  const sealed = hub.services.integrations.box.seal(hub.projectUid, "SECRET", "value");
  await s.integrations.createSecret(
    {
      projectUid: hub.projectUid,
      name: "SECRET",
      created: now,
      createdBy: "admin",
      modified: null,
      modifiedBy: null,
    },
    sealed,
  );
  // A project to delete, with the main project's members in their roles.
  const spareProject = hub.ids.projectUid();
  const main = (await s.projects.getProject(hub.projectUid))!;
  await s.projects.createProject({ ...main, uid: spareProject, label: "Spare" });
  for (const { user, role } of await s.projects.listMembers(hub.projectUid)) {
    await s.projects.setMember(spareProject, user.uid, role);
  }
  const journey = Math.floor(now / 1000);
  await hub.services.events.record({
    projectUid: hub.projectUid,
    deviceUid: device.uid,
    file: "_track.qo",
    data: { req: "note.add", body: { journey, jcount: 1 } },
  });
  return {
    ...automation,
    SPAREP: spareProject,
    WH: "hook",
    SEC: "SECRET",
    JY: String(journey),
    E: event.uid,
    R: route.uid,
    P: hub.projectUid,
    D: device.uid,
    PIN,
    SPARED: spare.uid,
    F: fleet,
    SPAREF: spareFleet,
    PR: hub.productUid,
    K: "K",
    ORG: hub.orgUid,
  };
}

/** A monitor (M), a batch job (J) and a finished run of it (RUN). */
async function seedMonitorAndJob(hub: TestHub): Promise<Record<string, string>> {
  const now = hub.clock.now();
  const P = hub.projectUid;
  const settings = { name: "Hot", description: "", source_type: "event", threshold: 30, alert_routes: [] };
  await hub.store.monitors.createMonitor({
    uid: "monitor:seeded",
    projectUid: P,
    settings,
    state: {},
    created: now,
    modified: now,
  });
  await hub.store.jobs.createJob({
    uid: "job-seeded",
    projectUid: P,
    name: "Seeded",
    createdBy: "owner@example.com",
    created: now,
    definition: { select: { all_devices: true } },
  });
  const document = {
    report_uid: "job-seeded-1",
    job_uid: "job-seeded",
    job_name: "Seeded",
    status: "completed successfully",
    dry_run: false,
    submitted_by: "owner@example.com",
    submitted: Math.floor(now / 1000),
    updated: Math.floor(now / 1000),
  };
  await hub.store.jobs.putRun({
    uid: "job-seeded-1",
    projectUid: P,
    jobUid: "job-seeded",
    submitted: now,
    document,
  });
  return { M: "monitor:seeded", J: "job-seeded", RUN: "job-seeded-1" };
}
