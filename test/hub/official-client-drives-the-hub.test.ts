import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningHub, startHub } from "../../runtime/startHub.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The official JavaScript client (@blues-inc/notehub-js 1.0.27-beta.5, the installable one)
 * against a real listening hub: it sends `X-Session-Token`, URL-encodes path segments and
 * rebuilds responses through its models.
 */
describe("the official client 1.0.27-beta.5 drives the hub", () => {
  let hub: RunningHub;
  let dir: string;
  let client: any;
  let devices: any;
  let projects: any;
  let project: string;
  const device = "dev:864475040523995";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-client-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false });
    project = hub.credentials.project_uid;
    client = new NotehubJs.ApiClient(hub.url);
    client.authentications.api_key.apiKey = hub.credentials.token;
    devices = new NotehubJs.DeviceApi(client);
    projects = new NotehubJs.ProjectApi(client);
    await hub.store.devices.putDevice({
      uid: device,
      projectUid: project,
      productUid: hub.credentials.product_uid,
      provisioned: Date.UTC(2026, 0, 2),
      serialNumber: "pump-7",
      sku: "NOTE-WBGLW",
      voltage: 4.2,
      temperature: 21.5,
      firmwareModule: JSON.stringify({ version: "notecard-8.1.3", ver_major: 8, ver_minor: 1, ver_patch: 3 }),
    });
    await hub.store.telemetry.addSession({
      uid: "8d3e9c3a-1f5d-4b59-9a55-1a6f0e9b5a01",
      deviceUid: device,
      projectUid: project,
      beganSec: 1_767_300_000,
      endedSec: 1_767_300_300,
      firstSync: true,
      data: { rat: "lte", bars: 3, tls: true, continuous: false },
    });
  });

  afterAll(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("logs in with the admin's username and password and uses the session token", async () => {
    const auth = new NotehubJs.AuthorizationApi(client);
    const login = await auth.login({
      username: hub.credentials.username,
      password: hub.credentials.password,
    });
    expect(login.session_token).toMatch(/^cardsim_session_/);
    const sessionClient = new NotehubJs.ApiClient(hub.url);
    sessionClient.authentications.api_key.apiKey = login.session_token;
    const list = await new NotehubJs.ProjectApi(sessionClient).getProjects();
    expect(list.projects.map((p: any) => p.uid)).toContain(project);
    const refused = await auth
      .login({ username: hub.credentials.username, password: "wrong" })
      .catch((e: any) => e);
    expect(refused.status).toBe(401);
    expect(refused.body.err).toMatch(/login failed/);
  });

  it("lists and reads devices, with filters and paging", async () => {
    const page = await devices.getProjectDevices(project, { pageSize: 10, pageNum: 1, sku: ["NOTE-WBGLW"] });
    expect(page.has_more).toBe(false);
    expect(page.devices).toHaveLength(1);
    expect(page.devices[0].uid).toBe(device);
    expect(page.devices[0].serial_number).toBe("pump-7");
    expect(new Date(page.devices[0].provisioned).toISOString()).toBe("2026-01-02T00:00:00.000Z");
    const none = await devices.getProjectDevices(project, { notecardFirmware: ["7.5"] });
    expect(none.devices).toEqual([]);
    const one = await devices.getDevice(project, device);
    expect(one.voltage).toBe(4.2);
    const bySerial = await devices.getDevice(project, "sn:pump-7");
    expect(bySerial.uid).toBe(device);
    const sessions = await devices.getDeviceSessions(project, device, { pageSize: 5 });
    expect(sessions.sessions[0].session).toBe("8d3e9c3a-1f5d-4b59-9a55-1a6f0e9b5a01");
    const missing = await devices.getDevice(project, "dev:1").catch((e: any) => e);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 404, status: "Not Found" });
  });

  it("sets, reads and deletes environment variables at project and device level", async () => {
    await projects.putProjectEnvironmentVariables(project, {
      environmentVariables: { environment_variables: { interval: "60", mode: "eco" } },
    });
    await devices.putDeviceEnvironmentVariables(project, device, {
      environment_variables: { interval: "5" },
    });
    const env = await devices.getDeviceEnvironmentVariables(project, device);
    expect(env.environment_variables).toEqual({ interval: "5" });
    const left = await devices.deleteDeviceEnvironmentVariable(project, device, "interval");
    expect(left.environment_variables).toEqual({});
    const projectEnv = await projects.getProjectEnvironmentVariables(project);
    expect(projectEnv.environment_variables).toEqual({ interval: "60", mode: "eco" });
  });

  it("adds inbound and database notes, reads, updates, lists changes and deletes them", async () => {
    await devices.handleNoteAdd(project, device, "data.qi", { body: { led: "on" } });
    await devices.handleNoteCreateAdd(project, device, "settings.db", "pump", { body: { rpm: 1200 } });
    const note = await devices.handleNoteGet(project, device, "settings.db", "pump", {});
    expect(note.body).toEqual({ rpm: 1200 });
    await devices.handleNoteUpdate(project, device, "settings.db", "pump", { body: { rpm: 900 } });
    const changes = await devices.handleNoteChanges(project, device, "settings.db", { tracker: "app1" });
    expect(changes.total).toBe(1);
    expect(changes.notes.pump.body).toEqual({ rpm: 900 });
    const again = await devices.handleNoteChanges(project, device, "settings.db", { tracker: "app1" });
    expect(again.changes).toBe(0);
    const files = await devices.handleNotefileChanges(project, device, {});
    expect(Object.keys(files.info).sort()).toEqual(["data.qi", "settings.db"]);
    const dup = await devices
      .handleNoteCreateAdd(project, device, "settings.db", "pump", { body: { rpm: 1 } })
      .catch((e: any) => e);
    expect(dup.status).toBe(409);
    expect(dup.body.err).toContain("{note-exists}");
    await devices.handleNoteDelete(project, device, "settings.db", "pump");
    await devices.handleNotefileDelete(project, device, { files: ["data.qi"] });
    const after = await devices.handleNotefileChanges(project, device, {});
    expect(Object.keys(after.info)).toEqual(["settings.db"]);
  });

  it("sends a signal and provisions a device to a product", async () => {
    const signal = await devices.handleNoteSignal(project, device, { body: { ping: 1 } });
    expect(signal.connected).toBe(false);
    expect((await hub.store.devices.pendingSignals(device)).map((s) => s.body)).toEqual([{ ping: 1 }]);
    await devices.postProvisionProjectDevice(project, "dev:864475040523996", {
      product_uid: hub.credentials.product_uid,
      device_sn: "pump-8",
    });
    const provisioned = await devices.getDevice(project, "sn:pump-8");
    expect(provisioned.product_uid).toBe(hub.credentials.product_uid);
    const wrong = await devices
      .postProvisionProjectDevice(project, "dev:864475040523997", { product_uid: "product:com.nope:x" })
      .catch((e: any) => e);
    expect(wrong.status).toBe(400);
  });

  it("sets, enables and disables the project's global event transformation", async () => {
    await projects.setGlobalTransformation(project, "$merge([$, {'body': $merge([body, {'seen': true}])}])");
    await projects.enableGlobalTransformation(project);
    const setting = await hub.store.integrations.getGlobalTransform(project);
    expect(setting).toMatchObject({ enabled: true, transform: expect.stringContaining("'seen': true") });
    const event = await hub.services.events.record({
      projectUid: project,
      deviceUid: device,
      file: "data.qo",
      data: { req: "note.add", body: { n: 1 } },
    });
    expect(event.data.body).toEqual({ n: 1, seen: true });
    await projects.disableGlobalTransformation(project);
    expect((await hub.store.integrations.getGlobalTransform(project))?.enabled).toBe(false);
    // The key project secrets are sealed with lives in the hub's directory, for its owner alone.
    const key = await stat(join(dir, "secrets.key"));
    expect(key.size).toBe(32);
    expect(key.mode & 0o077).toBe(0);
  });

  it("clones the project into the caller's billing account", async () => {
    const accounts = await new NotehubJs.BillingAccountApi(client).getBillingAccounts();
    const uid = accounts.billing_accounts[0].uid;
    const copy = await projects.cloneProject(project, {
      label: "Client copy",
      billing_account_uid: uid,
      disable_clone_routes: true,
    });
    expect(copy.label).toBe("Client copy");
    expect(copy.uid).not.toBe(project);
    expect((await projects.getProject(copy.uid)).label).toBe("Client copy");
    await projects.deleteProject(copy.uid);
    expect((await projects.getProject(copy.uid).catch((e: any) => e)).status).toBe(404);
  });
});
