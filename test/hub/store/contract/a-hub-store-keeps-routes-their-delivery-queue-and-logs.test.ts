import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import type { RouteLogRecord, RouteRecord } from "../../../../hub/store/RouteStore.js";
import { describeEachBackend } from "./support/backends.js";
import { PROJECT, seedProject, T0 } from "./support/seed.js";

const route = (uid: string, created = T0): RouteRecord => ({
  uid,
  projectUid: PROJECT,
  label: uid,
  type: "http",
  schema: "http",
  disabled: false,
  notes: null,
  settings: { url: "http://127.0.0.1:1/" },
  created,
  modified: created,
});

const logOf = (
  routeUid: string,
  eventUid: string,
  dateMs: number,
  attn = false,
  extra: Partial<RouteLogRecord> = {},
): RouteLogRecord => ({
  projectUid: PROJECT,
  routeUid,
  eventUid,
  deviceUid: "dev:1",
  file: "data.qo",
  dateMs,
  durationMs: 10,
  attn,
  status: attn ? "500" : "200",
  text: "",
  url: "http://127.0.0.1:1/",
  source: "routing",
  ...extra,
});

describeEachBackend("a hub store's routes, delivery queue and logs", (backend) => {
  let store: HubStore;
  const routes = () => store.routes;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
    await routes().createRoute(route("route:a"));
    await routes().createRoute(route("route:b", T0 + 1));
  });
  afterEach(() => backend.dispose(store));

  it("keeps routes oldest first, updates them, refuses an unknown one, and deletes them with their queue", async () => {
    expect((await routes().listRoutes(PROJECT)).map((r) => r.uid)).toEqual(["route:a", "route:b"]);
    await routes().updateRoute({
      ...route("route:a"),
      disabled: true,
      settings: { url: "x" },
      modified: T0 + 9,
    });
    expect(await routes().getRoute("route:a")).toMatchObject({
      disabled: true,
      settings: { url: "x" },
      modified: T0 + 9,
    });
    await expect(routes().updateRoute(route("route:none"))).rejects.toMatchObject({ code: "not-found" });
    await routes().enqueue([
      { routeUid: "route:a", projectUid: PROJECT, eventUid: "e1", attempt: 0, dueMs: T0, source: "routing" },
    ]);
    expect(await routes().deleteRoute("route:a")).toBe(true);
    expect(await routes().deleteRoute("route:a")).toBe(false);
    expect(await routes().pendingDeliveries()).toEqual([]);
  });

  it("queues deliveries in order, ends attempts with a log or a retry, and skips an entry already gone", async () => {
    const queued = await routes().enqueue([
      { routeUid: "route:a", projectUid: PROJECT, eventUid: "e1", attempt: 0, dueMs: T0, source: "routing" },
      { routeUid: "route:b", projectUid: PROJECT, eventUid: "e1", attempt: 0, dueMs: T0, source: "routing" },
      {
        routeUid: "route:a",
        projectUid: PROJECT,
        eventUid: "e2",
        attempt: 0,
        dueMs: T0 + 5,
        source: "routing",
      },
    ]);
    const seqs = queued.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(3);
    expect((await routes().pendingDeliveries()).map((e) => [e.seq, e.eventUid, e.begun])).toEqual([
      [seqs[0], "e1", 0],
      [seqs[1], "e1", 0],
      [seqs[2], "e2", 0],
    ]);
    await routes().beginAttempt(seqs[0]!);
    await routes().beginAttempt(seqs[0]!);
    await routes().abandonAttempt(seqs[0]!);
    await routes().abandonAttempt(seqs[1]!);
    expect((await routes().pendingDeliveries()).map((e) => e.begun)).toEqual([1, 0, 0]);
    await routes().deleteRoute("route:b");
    await routes().completeAttempts([
      {
        seq: seqs[0]!,
        log: logOf("route:a", "e1", T0 + 1, true),
        next: { attempt: 1, dueMs: T0 + 60_000, source: "retry" },
      },
      { seq: seqs[1]!, log: logOf("route:b", "e1", T0 + 1), next: null },
      { seq: seqs[2]!, log: logOf("route:a", "e2", T0 + 2), next: null },
    ]);
    expect(await routes().pendingDeliveries()).toEqual([
      {
        seq: seqs[0],
        routeUid: "route:a",
        projectUid: PROJECT,
        eventUid: "e1",
        attempt: 1,
        dueMs: T0 + 60_000,
        source: "retry",
        begun: 0,
      },
    ]);
    const logs = await routes().listLogs(
      PROJECT,
      { sortBy: "date", sortOrder: "asc" },
      { offset: 0, limit: 10 },
    );
    expect(logs.map((l) => [l.routeUid, l.eventUid, l.attn])).toEqual([
      ["route:a", "e1", true],
      ["route:a", "e2", false],
    ]);
  });

  it("gives each delivery to one hub process: its own, or claimed once the process that queued it is gone", async () => {
    const entry = (eventUid: string) =>
      ({
        routeUid: "route:a",
        projectUid: PROJECT,
        eventUid,
        attempt: 0,
        dueMs: T0,
        source: "routing",
      }) as const;
    await routes().enqueue([entry("e1"), entry("e2")], "node:a");
    await routes().enqueue([entry("e3")]);
    const events = (entries: { eventUid: string }[]) => entries.map((e) => e.eventUid);
    // Node a is alive: only the delivery queued without an owner is free.
    expect(events(await routes().claimDeliveries("node:b", ["node:a", "node:b"]))).toEqual(["e3"]);
    expect(await routes().claimDeliveries("node:b", ["node:a", "node:b"])).toEqual([]);
    // Both gone: node c takes everything, in queueing order.
    expect(events(await routes().claimDeliveries("node:c", ["node:c"]))).toEqual(["e1", "e2", "e3"]);
    // Two processes claiming at once (c gone) share the deliveries without overlap.
    await routes().enqueue([entry("e4"), entry("e5"), entry("e6")], "node:c");
    const [d, e] = await Promise.all([
      routes().claimDeliveries("node:d", ["node:d", "node:e"]),
      routes().claimDeliveries("node:e", ["node:d", "node:e"]),
    ]);
    expect([...events(d), ...events(e)].sort()).toEqual(["e1", "e2", "e3", "e4", "e5", "e6"]);
    expect(await routes().claimDeliveries("node:d", ["node:d", "node:e"])).toEqual([]);
  });

  it("lists logs through every filter, the newest attempt per event, and counts them per period", async () => {
    await routes().addLog(logOf("route:a", "e1", T0 + 1000, true));
    await routes().addLog(logOf("route:a", "e1", T0 + 2000));
    await routes().addLog(
      logOf("route:b", "e2", T0 + 86_400_000, false, { file: "_health.qo", durationMs: 0 }),
    );
    const list = (filter: object) =>
      routes()
        .listLogs(PROJECT, { sortBy: "date", sortOrder: "desc", ...filter }, { offset: 0, limit: 10 })
        .then((logs) => logs.map((l) => `${l.routeUid}/${l.eventUid}@${l.dateMs - T0}`));
    expect(await list({})).toEqual(["route:b/e2@86400000", "route:a/e1@2000", "route:a/e1@1000"]);
    expect(await list({ mostRecentOnly: true, routeUid: "route:a" })).toEqual(["route:a/e1@2000"]);
    expect(await list({ routingStatus: ["failure"] })).toEqual(["route:a/e1@1000"]);
    expect(await list({ responseStatus: ["500", "404"] })).toEqual(["route:a/e1@1000"]);
    expect(await list({ systemFilesOnly: true })).toEqual(["route:b/e2@86400000"]);
    expect(await list({ startSec: T0 / 1000 + 2, endSec: T0 / 1000 + 2 })).toEqual(["route:a/e1@2000"]);
    expect(
      await list({ sortBy: "event", sortOrder: "asc", deviceUids: ["dev:1"], files: ["data.qo"] }),
    ).toEqual(["route:a/e1@1000", "route:a/e1@2000"]);
    const usage = await routes().logUsage(PROJECT, {
      period: "day",
      fromSec: T0 / 1000,
      toSec: T0 / 1000 + 2 * 86_400,
      routeUids: [],
      byProject: false,
    });
    expect(usage).toEqual([
      { routeUid: "route:a", periodSec: T0 / 1000, successful: 1, failed: 1, avgLatencyMs: 10 },
      { routeUid: "route:b", periodSec: T0 / 1000 + 86_400, successful: 1, failed: 0, avgLatencyMs: null },
    ]);
    const project = await routes().logUsage(PROJECT, {
      period: "month",
      fromSec: T0 / 1000,
      toSec: T0 / 1000 + 2 * 86_400,
      routeUids: ["route:a"],
      byProject: true,
    });
    expect(project).toEqual([
      { routeUid: "", periodSec: T0 / 1000, successful: 1, failed: 1, avgLatencyMs: 10 },
    ]);
  });

  it("keeps the newest logs per route and none older than the retention's age", async () => {
    routes().setLogRetention({ keepPerRoute: 2, maxAgeMs: 0 });
    for (let n = 1; n <= 4; n++) await routes().addLog(logOf("route:a", `e${n}`, T0 + n));
    await routes().addLog(logOf("route:b", "x", T0));
    const events = async () =>
      (await routes().listLogs(PROJECT, { sortBy: "date", sortOrder: "asc" }, { offset: 0, limit: 10 })).map(
        (l) => l.eventUid,
      );
    expect(await events()).toEqual(["x", "e3", "e4"]);
    routes().setLogRetention({ keepPerRoute: 0, maxAgeMs: 1000 });
    await routes().addLog(logOf("route:b", "y", T0 + 1004));
    expect(await events()).toEqual(["e4", "y"]);
  });
});
