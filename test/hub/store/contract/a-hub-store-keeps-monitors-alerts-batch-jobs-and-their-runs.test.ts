import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { describeEachBackend } from "./support/backends.js";
import { OTHER_PROJECT, PROJECT, seedProject, T0 } from "./support/seed.js";

describeEachBackend("a hub store's monitors, alerts, batch jobs and runs", (backend) => {
  let store: HubStore;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
  });
  afterEach(() => backend.dispose(store));

  const monitor = (uid: string, created: number, projectUid = PROJECT) => ({
    uid,
    projectUid,
    settings: { name: uid, threshold: 5 },
    state: {},
    created,
    modified: created,
  });

  it("keeps monitors oldest first per project, replaces settings and state apart, and deletes them", async () => {
    await store.monitors.createMonitor(monitor("monitor:b", T0 + 1));
    await store.monitors.createMonitor(monitor("monitor:a", T0));
    await store.monitors.createMonitor(monitor("monitor:x", T0, OTHER_PROJECT));
    expect((await store.monitors.listMonitors(PROJECT)).map((m) => m.uid)).toEqual([
      "monitor:a",
      "monitor:b",
    ]);
    await store.monitors.setMonitorState("monitor:a", { open: { "*": "alert:1" } });
    await store.monitors.updateMonitor("monitor:a", { name: "renamed", threshold: 9 }, T0 + 5);
    expect(await store.monitors.getMonitor("monitor:a")).toEqual({
      uid: "monitor:a",
      projectUid: PROJECT,
      settings: { name: "renamed", threshold: 9 },
      state: { open: { "*": "alert:1" } },
      created: T0,
      modified: T0 + 5,
    });
    await expect(store.monitors.updateMonitor("monitor:none", {}, T0)).rejects.toMatchObject({
      code: "not-found",
    });
    await store.monitors.setMonitorState("monitor:none", {});
    expect(await store.monitors.deleteMonitor("monitor:a")).toBe(true);
    expect(await store.monitors.deleteMonitor("monitor:a")).toBe(false);
    expect(await store.monitors.getMonitor("monitor:a")).toBeUndefined();
  });

  it("keeps alerts newest first, by monitor when asked, in pages, and updates one when it clears", async () => {
    for (let i = 0; i < 5; i++) {
      await store.monitors.addAlert({
        uid: `alert:${i}`,
        projectUid: PROJECT,
        monitorUid: i % 2 === 0 ? "monitor:even" : "monitor:odd",
        created: T0 + i * 1000,
        document: { uid: `alert:${i}`, resolved: false, version: 1 },
      });
    }
    await store.monitors.addAlert({
      uid: "alert:other",
      projectUid: OTHER_PROJECT,
      monitorUid: "monitor:even",
      created: T0,
      document: {},
    });
    const first = await store.monitors.listAlerts(PROJECT, {}, { offset: 0, limit: 2 });
    expect(first.items.map((a) => a.uid)).toEqual(["alert:4", "alert:3"]);
    expect(first.hasMore).toBe(true);
    const last = await store.monitors.listAlerts(PROJECT, {}, { offset: 4, limit: 2 });
    expect(last).toMatchObject({
      items: [{ uid: "alert:0", monitorUid: "monitor:even", created: T0 }],
      hasMore: false,
    });
    const even = await store.monitors.listAlerts(
      PROJECT,
      { monitorUid: "monitor:even" },
      { offset: 0, limit: 10 },
    );
    expect(even.items.map((a) => a.uid)).toEqual(["alert:4", "alert:2", "alert:0"]);
    await store.monitors.updateAlert("alert:2", { uid: "alert:2", resolved: true, version: 2 });
    expect((await store.monitors.getAlert("alert:2"))?.document).toEqual({
      uid: "alert:2",
      resolved: true,
      version: 2,
    });
    await expect(store.monitors.updateAlert("alert:none", {})).rejects.toMatchObject({ code: "not-found" });
  });

  it("keeps jobs per project, their runs newest first, replaces a run as it goes, and deletes both", async () => {
    const job = { uid: "job:1", projectUid: PROJECT, name: "vars", createdBy: "a@example.com", created: T0 };
    await store.jobs.createJob({ ...job, definition: { select: { all_devices: true } } });
    await store.jobs.createJob({ ...job, uid: "job:0", created: T0 - 1, definition: {} });
    await store.jobs.createJob({ ...job, uid: "job:x", projectUid: OTHER_PROJECT, definition: {} });
    expect((await store.jobs.listJobs(PROJECT)).map((j) => j.uid)).toEqual(["job:0", "job:1"]);
    expect(await store.jobs.getJob("job:1")).toEqual({
      ...job,
      definition: { select: { all_devices: true } },
    });

    const run = (uid: string, submitted: number, status: string) => ({
      uid,
      projectUid: PROJECT,
      jobUid: "job:1",
      submitted,
      document: { status },
    });
    await store.jobs.putRun(run("job:1-1", T0 + 1, "submitted"));
    await store.jobs.putRun(run("job:1-2", T0 + 2, "submitted"));
    await store.jobs.putRun(run("job:1-1", T0 + 1, "completed successfully"));
    expect((await store.jobs.listRuns("job:1")).map((r) => [r.uid, r.document.status])).toEqual([
      ["job:1-2", "submitted"],
      ["job:1-1", "completed successfully"],
    ]);
    expect(await store.jobs.getRun("job:1-1")).toEqual(run("job:1-1", T0 + 1, "completed successfully"));
    expect(await store.jobs.deleteRun("job:1-1")).toBe(true);
    expect(await store.jobs.deleteRun("job:1-1")).toBe(false);
    expect(await store.jobs.deleteJob("job:1")).toBe(true);
    expect(await store.jobs.deleteJob("job:1")).toBe(false);
    expect(await store.jobs.getJob("job:1")).toBeUndefined();
    expect(await store.jobs.getRun("job:1-2")).toBeDefined();
  });
});
