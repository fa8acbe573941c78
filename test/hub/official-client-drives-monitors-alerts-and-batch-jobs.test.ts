import type { AddressInfo } from "node:net";
// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_STEP_MS } from "../../hub/jobs/JobService.js";
import { TestHub } from "./support/hubFixture.js";
import { callOperation } from "./support/officialClient.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The official JavaScript client (@blues-inc/notehub-js 1.0.27-beta.5) against the hub listening
 * on loopback, on the fake clock: its MonitorApi and AlertApi for monitors and alerts, and, as
 * that version has no JobsApi, its ApiClient's own `callApi` (the machinery every generated API
 * class uses) for the batch job operations of the current definition.
 */
describe("the official client drives monitors, alerts and batch jobs", () => {
  let hub: TestHub;
  let client: any;
  let project: string;
  let device: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    await hub.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = hub.app.server.address() as AddressInfo;
    client = new NotehubJs.ApiClient(`http://127.0.0.1:${port}`);
    client.authentications.api_key.apiKey = hub.tokens.owner;
    project = hub.projectUid;
    device = (await hub.device({ serialNumber: "pump-7" })).uid;
  });

  afterAll(async () => {
    await hub.close();
  });

  it("creates, reads, updates and deletes a monitor, and reads the alerts it raised", async () => {
    const monitors = new NotehubJs.MonitorApi(client);
    const created = await monitors.createMonitor(project, {
      name: "Too hot",
      description: "pump temperature",
      source_type: "event",
      source_selector: "body.temp",
      condition_type: "greater_than",
      threshold: 30,
      notefile_filter: ["pump.qo"],
      alert_routes: [],
    });
    expect(created).toBeInstanceOf(NotehubJs.Monitor);
    expect(created).toMatchObject({ name: "Too hot", threshold: 30, alert: false });

    await hub.services.events.record({
      projectUid: project,
      deviceUid: device,
      file: "pump.qo",
      data: { body: { temp: 41 } },
    });
    await hub.services.monitors.idle();

    const alerts = await new NotehubJs.AlertApi(client).getAlerts(project, {
      monitorUID: created.uid,
      pageSize: 10,
    });
    expect(alerts.has_more).toBe(false);
    expect(alerts.alerts).toHaveLength(1);
    expect(alerts.alerts[0]).toMatchObject({
      monitor_uid: created.uid,
      device_uid: device,
      value: 41,
      resolved: false,
    });

    const listed = await monitors.getMonitors(project);
    expect(listed.map((m: any) => [m.uid, m.alert])).toEqual([[created.uid, true]]);
    const updated = await monitors.updateMonitor(project, created.uid, { threshold: 50 });
    expect(updated).toMatchObject({ uid: created.uid, threshold: 50 });
    expect((await monitors.getMonitor(project, created.uid)).threshold).toBe(50);
    const deleted = await monitors.deleteMonitor(project, created.uid);
    expect(deleted.uid).toBe(created.uid);
    const gone = await monitors.getMonitor(project, created.uid).catch((e: any) => e);
    expect(gone.status).toBe(404);
  });

  it("creates a batch job, runs it dry and for real, reads its runs and report, and deletes them", async () => {
    const call = (
      method: string,
      path: string,
      pathParams: object,
      query: object = {},
      body: unknown = null,
    ) => callOperation(client, method, path, pathParams, { query, body });
    const J = "/v1/projects/{projectUID}/jobs";
    const step = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await hub.clock.advance(JOB_STEP_MS);
        await hub.services.jobs.idle();
      }
    };

    const created = await call(
      "POST",
      J,
      { projectUID: project },
      { name: "Channel" },
      {
        select: { devices_by_sn: ["pump-*"] },
        default_requests: { vars_to_set: { channel: "beta" } },
      },
    );
    expect(created.response.status).toBe(201);
    const jobUID = created.data.job_uid;
    const dry = await call("POST", `${J}/{jobUID}/run`, { projectUID: project, jobUID }, { dry_run: true });
    await step(1);
    const real = await call("POST", `${J}/{jobUID}/run`, { projectUID: project, jobUID });
    await step(1);

    const job = await call("GET", `${J}/{jobUID}`, { projectUID: project, jobUID });
    expect(job.data).toMatchObject({
      job_uid: jobUID,
      name: "Channel",
      last_run_status: "completed successfully",
    });
    expect(job.data.definition.select).toEqual({ devices_by_sn: ["pump-*"] });
    const runs = await call("GET", `${J}/{jobUID}/runs`, { projectUID: project, jobUID });
    expect(runs.data.runs.map((r: any) => [r.report_uid, r.dry_run])).toEqual([
      [real.data.report_uid, false],
      [dry.data.report_uid, true],
    ]);
    const report = await call(
      "GET",
      `${J}/runs/{reportUID}`,
      { projectUID: project, reportUID: real.data.report_uid },
      { view: "detail" },
    );
    expect(report.data.results.devices[device]).toMatchObject({
      status: "completed",
      vars_set: { channel: "beta" },
    });
    const cancel = await call("POST", `${J}/runs/{reportUID}/cancel`, {
      projectUID: project,
      reportUID: real.data.report_uid,
    });
    expect(cancel.data).toEqual({ successful: false });
    await call("DELETE", `${J}/runs/{reportUID}`, { projectUID: project, reportUID: dry.data.report_uid });
    expect((await call("GET", `${J}`, { projectUID: project })).data.jobs).toHaveLength(1);
    expect((await call("DELETE", `${J}/{jobUID}`, { projectUID: project, jobUID })).data).toEqual({
      success: true,
    });
    expect((await hub.store.env.get({ kind: "device", uid: device })).map((v) => [v.key, v.value])).toEqual([
      ["channel", "beta"],
    ]);
  });
});
