import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningHub, startHub } from "../../../runtime/startHub.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

const BASE = Date.UTC(2026, 0, 10) / 1000;

/**
 * The official JavaScript client (@blues-inc/notehub-js 1.0.27-beta.5) calls every Event API
 * method it has against a listening hub, and rebuilds the answers through its models.
 */
describe("the official client reads events", () => {
  let hub: RunningHub;
  let dir: string;
  let events: any;
  let project: string;
  let fleet: string;
  const uids: string[] = [];
  const inFleet = "dev:864475040600001";
  const outside = "dev:864475040600002";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-hub-events-client-"));
    hub = await startHub({ dir, listen: "127.0.0.1:0", tlsListen: false, rateLimits: false, log: false });
    project = hub.credentials.project_uid;
    const client = new NotehubJs.ApiClient(hub.url);
    client.authentications.api_key.apiKey = hub.credentials.token;
    events = new NotehubJs.EventApi(client);
    fleet = hub.services.ids.fleetUid();
    await hub.store.projects.createFleet({
      uid: fleet,
      projectUid: project,
      label: "pumps",
      created: Date.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    for (const [uid, sn, fleets] of [
      [inFleet, "pump-1", [fleet]],
      [outside, "pump-2", []],
    ] as const) {
      await hub.store.devices.putDevice({
        uid,
        projectUid: project,
        productUid: hub.credentials.product_uid,
        provisioned: Date.UTC(2026, 0, 1),
        serialNumber: sn,
        fleetUids: [...fleets],
      });
    }
    for (let i = 0; i < 12; i++) {
      const uid = `6a1e0c3e-0000-4000-8000-${String(i).padStart(12, "0")}`;
      uids.push(uid);
      const device = i % 3 === 0 ? outside : inFleet;
      await hub.store.telemetry.addEvent({
        uid,
        projectUid: project,
        deviceUid: device,
        sessionUid: "b623132c-6afb-4740-bc39-e3634e38f064",
        file: i % 4 === 0 ? "_session.qo" : "air.qo",
        received: BASE + i * 60 + 0.5,
        whenSec: BASE + i * 60,
        data: {
          req: "note.add",
          app: project,
          product: hub.credentials.product_uid,
          sn: device === inFleet ? "pump-1" : "pump-2",
          best_id: device === inFleet ? "pump-1" : "pump-2",
          body: { temperature: 20 + i, humidity: 40 },
        },
      });
    }
  });

  afterAll(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("getProjectEvents: filters, sorts, pages and selects fields", async () => {
    const page = await events.getProjectEvents(project, { pageSize: 5, sortOrder: "desc" });
    expect(page.has_more).toBe(true);
    expect(page.events.map((e: any) => e.event)).toEqual(uids.slice(7).reverse());
    expect(page.events[0]).toMatchObject({ device: inFleet, file: "air.qo", sn: "pump-1", when: BASE + 660 });
    expect(page.events[0].body).toEqual({ temperature: 31, humidity: 40 });
    const filtered = await events.getProjectEvents(project, {
      deviceUID: [outside],
      startDate: BASE + 100,
      endDate: BASE + 400,
      dateType: "uploaded",
    });
    expect(filtered.events.map((e: any) => e.event)).toEqual([uids[3], uids[6]]);
    const system = await events.getProjectEvents(project, { deviceUID: [outside], systemFilesOnly: true });
    expect(system.events.map((e: any) => e.event)).toEqual([uids[0]]);
    const bySerial = await events.getProjectEvents(project, {
      serialNumber: ["pump-1"],
      fleetUID: [fleet],
      files: "air.qo",
      selectFields: "deviceUID,body.temperature",
      sortBy: "best_id",
    });
    expect(bySerial.events).toHaveLength(6);
    expect(Object.keys(bySerial.events[0]).sort()).toEqual(["body", "device", "event"]);
    const bad = await events.getProjectEvents(project, { sortBy: "nonsense" }).catch((e: any) => e);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400, status: "Bad Request" });
  });

  it("getProjectEventsByCursor: walks every event once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await events.getProjectEventsByCursor(project, {
        limit: 5,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.events.map((e: any) => e.event));
      if (!page.has_more) {
        expect(page.next_cursor).toBe("");
        break;
      }
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(uids);
    const inFleetOnly = await events.getProjectEventsByCursor(project, { fleetUID: fleet, limit: 100 });
    expect(inFleetOnly.events).toHaveLength(8);
  });

  it("getFleetEvents and getFleetEventsByCursor: the fleet's events only", async () => {
    const page = await events.getFleetEvents(project, fleet, { pageSize: 100, sortBy: "modified" });
    expect(page.events.map((e: any) => e.event)).toEqual(uids.filter((_, i) => i % 3 !== 0));
    const cursor = await events.getFleetEventsByCursor(project, fleet, {
      limit: 3,
      sortOrder: "desc",
      startDate: BASE + 300,
    });
    expect(cursor.events.map((e: any) => e.event)).toEqual([uids[11], uids[10], uids[8]]);
    expect(cursor.next_cursor).toBe(uids[7]);
    const missing = await events
      .getFleetEvents(project, "fleet:00000000-0000-4000-8000-000000000000", {})
      .catch((e: any) => e);
    expect(missing.status).toBe(404);
  });

  it("getRouteLogsByEvent: none before routes exist", async () => {
    expect(await events.getRouteLogsByEvent(project, uids[0])).toEqual([]);
    const missing = await events
      .getRouteLogsByEvent(project, "00000000-0000-4000-8000-000000000000")
      .catch((e: any) => e);
    expect(missing.status).toBe(404);
  });
});
