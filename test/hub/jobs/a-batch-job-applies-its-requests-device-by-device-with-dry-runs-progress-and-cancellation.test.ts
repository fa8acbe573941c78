import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JOB_STEP_MS } from "../../../hub/jobs/JobService.js";
import { TestHub } from "../support/hubFixture.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Batch jobs through the API on the hub's fake clock: a run takes the devices the job selects
 * and applies their requests one device per step, its progress readable in the job's
 * `last_run_status`; dry runs change nothing; a run can be cancelled between devices; the report
 * says what was done to each device. Every response is checked against the definition.
 */
describe("a batch job", () => {
  let hub: TestHub;
  let P: string;
  let fleet: string;
  let spare: string;
  const devices: string[] = [];

  const newFleet = async (label: string): Promise<string> => {
    const res = await hub.request("POST", `/v1/projects/${hub.projectUid}/fleets`, {
      as: "developer",
      body: { label },
    });
    return res.json.uid as string;
  };

  beforeEach(async () => {
    hub = await TestHub.start();
    P = `/v1/projects/${hub.projectUid}`;
    fleet = await newFleet("Pumps");
    spare = await newFleet("Spare");
    devices.length = 0;
    for (const sn of ["pump-1", "pump-2", "valve-1"]) {
      devices.push(
        (await hub.device({ serialNumber: sn, fleetUids: sn.startsWith("pump") ? [fleet] : [] })).uid,
      );
    }
  });

  afterEach(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const createJob = async (definition: unknown, name = "Tune pumps"): Promise<string> => {
    const res = await hub.request("POST", `${P}/jobs?name=${encodeURIComponent(name)}`, {
      as: "developer",
      body: definition,
    });
    expect(res.status, res.text).toBe(201);
    return res.json.job_uid as string;
  };

  const run = async (job: string, dryRun = false): Promise<string> => {
    const res = await hub.request("POST", `${P}/jobs/${job}/run${dryRun ? "?dry_run=true" : ""}`, {
      as: "developer",
    });
    expect(res.status, res.text).toBe(200);
    return res.json.report_uid as string;
  };

  const step = async (n = 1): Promise<void> => {
    for (let i = 0; i < n; i++) {
      await hub.clock.advance(JOB_STEP_MS);
      await hub.services.jobs.idle();
    }
  };

  const jobStatus = async (job: string): Promise<string> =>
    (await hub.request("GET", `${P}/jobs/${job}`, { as: "viewer" })).json.last_run_status as string;

  const deviceVars = async (uid: string): Promise<Record<string, string>> =>
    Object.fromEntries((await hub.store.env.get({ kind: "device", uid })).map((v) => [v.key, v.value]));

  it("shows its progress device by device, changes nothing in a dry run, and applies the requests in a real one", async () => {
    const job = await createJob({
      comment: "pumps to production",
      select: { devices_in_fleets: [fleet] },
      default_requests: { vars_to_set: { channel: "production" }, fleets_to_join: [spare] },
      report_options: { device_vars: true, app_info: true },
    });
    const dry = await run(job, true);
    expect(await jobStatus(job)).toBe("submitted");
    await step();
    expect(await jobStatus(job)).toBe(
      `${devices[0]} would be updated: vars_set channel; fleets_joined ${spare}`,
    );
    await step();
    expect(await jobStatus(job)).toBe("dry run completed successfully");
    expect(await deviceVars(devices[0]!)).toEqual({});
    expect((await hub.store.devices.getDevice(devices[0]!))?.fleetUids).toEqual([fleet]);

    const real = await run(job);
    await step(2);
    const listed = await hub.request("GET", `${P}/jobs`, { as: "viewer" });
    expect(listed.json.jobs).toEqual([
      expect.objectContaining({
        job_uid: job,
        name: "Tune pumps",
        created_by: "developer@example.com",
        last_run_status: "completed successfully",
      }),
    ]);
    expect(await deviceVars(devices[0]!)).toEqual({ channel: "production" });
    expect(await deviceVars(devices[2]!)).toEqual({}); // not selected
    expect((await hub.store.devices.getDevice(devices[1]!))?.fleetUids.sort()).toEqual([fleet, spare].sort());

    const report = await hub.request("GET", `${P}/jobs/runs/${real}?view=detail`, { as: "viewer" });
    expect(report.json).toMatchObject({
      report_uid: real,
      job_uid: job,
      job_name: "Tune pumps",
      status: "completed successfully",
      dry_run: false,
      submitted_by: "developer@example.com",
      results: {
        devices: {
          [devices[0]!]: {
            status: "completed",
            vars_set: { channel: "production" },
            device_vars: { channel: "production" },
          },
        },
        job: { status: "completed successfully", who_submitted: "developer@example.com" },
        app: { info: { uid: hub.projectUid } },
      },
    });
    const summary = await hub.request("GET", `${P}/jobs/runs/${real}`, { as: "viewer" });
    expect(summary.json.results).toBeUndefined();
    const runs = await hub.request("GET", `${P}/jobs/${job}/runs?dry_run=true`, { as: "viewer" });
    expect(runs.json.runs.map((r: any) => r.report_uid)).toEqual([dry]);
    const done = await hub.request("GET", `${P}/jobs/${job}/runs?status=completed%20successfully`, {
      as: "viewer",
    });
    expect(done.json.runs.map((r: any) => r.report_uid)).toEqual([real]);
  });

  it("selects by serial number pattern, lets a device's own requests override the defaults, and clears, defaults and disables", async () => {
    await hub.store.env.set({ kind: "device", uid: devices[0]! }, { old: "1", level: "3" }, hub.clock.now());
    const job = await createJob({
      select: { devices_by_sn: ["pump-[12]"] },
      default_requests: { vars_to_set: { old: "-" }, vars_to_default: { level: "1" }, disable: true },
      device_requests: { [devices[1]!]: { sn_to_set: "pump-2b", disable: false } },
    });
    await run(job);
    await step(2);
    expect(await deviceVars(devices[0]!)).toEqual({ level: "3" });
    expect(await deviceVars(devices[1]!)).toEqual({ level: "1" });
    expect(await hub.store.devices.getDevice(devices[0]!)).toMatchObject({ disabled: true });
    expect(await hub.store.devices.getDevice(devices[1]!)).toMatchObject({
      disabled: false,
      serialNumber: "pump-2b",
    });
    expect(await hub.store.devices.getDevice(devices[2]!)).toMatchObject({ disabled: false });
  });

  it("is cancelled between devices, and reports a device it could not change as an error", async () => {
    const job = await createJob({
      select: { all_devices: true },
      default_requests: { vars_to_set: { a: "1" } },
    });
    const report = await run(job);
    await step();
    const cancel = await hub.request("POST", `${P}/jobs/runs/${report}/cancel`, { as: "developer" });
    expect(cancel.json).toEqual({ successful: true });
    await step(3);
    expect(await jobStatus(job)).toBe("cancelled");
    expect(await deviceVars(devices[0]!)).toEqual({ a: "1" });
    expect(await deviceVars(devices[1]!)).toEqual({});
    const again = await hub.request("POST", `${P}/jobs/runs/${report}/cancel`, { as: "developer" });
    expect(again.json).toEqual({ successful: false });
    expect((await hub.request("GET", `${P}/jobs/runs/${report}`, { as: "viewer" })).json).toMatchObject({
      cancel: true,
      status: "cancelled",
    });

    const bad = await createJob(
      { select: { devices: [devices[2]!] }, default_requests: { fleets_to_join: ["fleet:none"] } },
      "bad",
    );
    await run(bad);
    await step();
    expect(await jobStatus(bad)).toBe("completed with errors");
  });

  it("refuses a job without a name or with a malformed definition, and deletes runs and jobs", async () => {
    const unnamed = await hub.request("POST", `${P}/jobs`, { as: "developer", body: {} });
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.err).toMatch(/query argument name is required/);
    const malformed = await hub.request("POST", `${P}/jobs?name=x`, {
      as: "developer",
      body: { select: { devices: "dev:1" } },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.err).toMatch(/select.devices must be an array of strings/);
    const job = await createJob({ select: { all_devices: true } });
    const report = await run(job);
    expect((await hub.request("DELETE", `${P}/jobs/runs/${report}`, { as: "developer" })).status).toBe(200);
    expect((await hub.request("GET", `${P}/jobs/runs/${report}`, { as: "viewer" })).status).toBe(404);
    expect((await hub.request("DELETE", `${P}/jobs/${job}`, { as: "developer" })).json).toEqual({
      success: true,
    });
    expect((await hub.request("GET", `${P}/jobs/${job}`, { as: "viewer" })).status).toBe(404);
    expect((await hub.request("POST", `${P}/jobs/${job}/run`, { as: "developer" })).status).toBe(404);
  });
});
