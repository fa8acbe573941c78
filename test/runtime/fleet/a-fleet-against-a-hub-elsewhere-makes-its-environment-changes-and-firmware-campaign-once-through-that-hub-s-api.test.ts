import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHubApi, parseWorkload, runFleet, startHub, SystemClock, type RunningHub } from "cardsim";

// With a hub elsewhere (one listening on loopback with HTTPS, as `cardsim hub` does) and its
// owner's token, a fleet in worker threads makes its workload's hub side through that hub's REST
// API, once for the whole fleet: the project's variables, each device's variables, one firmware
// image uploaded and an update asked for every device. Without the token such a workload is
// refused before any module starts; a token the hub refuses is said in one line.

const WORKLOAD = parseWorkload(
  `
name: elsewhere
seed: elsewhere-1
groups:
  - name: pumps
    sync: { mode: periodic, outbound: 5, inbound: 5 }
    notefiles:
      - { file: pump.qo, every: 10m, body: { rpm: { $int: [900, 1500] } } }
    environment:
      - { at: 5m, vars: { sample_minutes: "5" } }
      - { at: 10m, scope: device, vars: { zone: "north" } }
    dfu: { at: 5m, bytes: 4096, version: 3.1.4 }
`,
  "elsewhere.yaml",
);
const MODULES = 6;
let hub: RunningHub;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cardsim-fleet-elsewhere-"));
  hub = await startHub({
    dir,
    listen: "127.0.0.1:0",
    tlsListen: "127.0.0.1:0",
    clock: new SystemClock(),
    helloLimits: false,
  });
});

afterAll(async () => {
  await hub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const elsewhere = (token?: string) => ({
  url: hub.tlsUrl!,
  ca: hub.credentials.ca_cert!,
  product: hub.credentials.product_uid,
  ...(token !== undefined ? { token } : {}),
});

describe("a fleet against a hub elsewhere, with the hub's token", () => {
  it("sets the variables and runs the firmware campaign once, for the modules of every worker", async () => {
    const run = await runFleet({
      modules: MODULES,
      workload: WORKLOAD,
      hub: elsewhere(hub.credentials.token),
      workers: 2,
      speed: 600,
      durationMs: 30 * 60_000,
    });
    expect(run.summary.errors).toEqual({});
    expect(run.summary.sessions.failed).toBe(0);
    expect(await hub.getProjectEnvironmentVariables()).toMatchObject({ sample_minutes: "5" });
    const devices = (await hub.getDevices({ pageSize: 100 })).devices.map((d) => String(d["uid"]));
    expect(devices).toHaveLength(MODULES);
    for (const device of devices) {
      expect(await hub.getDeviceEnvironmentVariables(device)).toMatchObject({ zone: "north" });
      expect(JSON.stringify(await hub.getDeviceDfuStatus(device, "host"))).toMatch(/pumps-3\.1\.4/);
    }
    // One image for the whole fleet, not one per worker.
    const images = await hub.request<unknown[]>("GET", `/v1/projects/${hub.projectUid}/firmware`, undefined, {
      query: { firmwareType: "host" },
    });
    expect(images.status).toBe(200);
    const names = images.body.map((i) => (i as { filename: string }).filename);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^pumps-3\.1\.4/);
  }, 300_000);

  it("is refused without the token, before any module starts", async () => {
    await expect(
      runFleet({ modules: 2, workload: WORKLOAD, hub: elsewhere(), speed: 600, durationMs: 60_000 }),
    ).rejects.toThrow(
      /environment changes and firmware campaign are made through the hub's API: give the project owner's token/,
    );
    await expect(
      runFleet({
        modules: 2,
        workload: WORKLOAD,
        hub: elsewhere(),
        workers: 2,
        speed: 600,
        durationMs: 60_000,
      }),
    ).rejects.toThrow(/give the project owner's token/);
  });

  it("says in one line that the hub refused a wrong token", async () => {
    await expect(
      runFleet({
        modules: 2,
        workload: WORKLOAD,
        hub: elsewhere("not-a-token"),
        speed: 600,
        durationMs: 60_000,
      }),
    ).rejects.toThrow(/^the hub refused the token \(401\): give the project owner's token$/);
  });
});

describe("connectHubApi, the REST API of a hub elsewhere", () => {
  it("finds the project from the product, or the token's only project, and answers as in process", async () => {
    const { token, ca_cert: ca, product_uid: product } = hub.credentials;
    for (const options of [{ product }, {}]) {
      const remote = await connectHubApi({ url: hub.tlsUrl!, token, ca: ca!, ...options });
      try {
        expect(remote.api.projectUid).toBe(hub.projectUid);
        expect(remote.api.productUid).toBe(product);
        const over = await remote.api.request("GET", `/v1/projects/${hub.projectUid}/devices`);
        const here = await hub.request("GET", `/v1/projects/${hub.projectUid}/devices`);
        expect(over.status).toBe(200);
        expect(over.body).toEqual(here.body);
        const missing = await remote.api.request("GET", `/v1/projects/${hub.projectUid}/devices/dev:000`);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual(
          (await hub.request("GET", `/v1/projects/${hub.projectUid}/devices/dev:000`)).body,
        );
      } finally {
        remote.close();
      }
    }
    await expect(
      connectHubApi({ url: hub.tlsUrl!, token, ca: ca!, product: "product:com.example:none" }),
    ).rejects.toThrow("the hub has no product product:com.example:none: check --product");
  });
});
