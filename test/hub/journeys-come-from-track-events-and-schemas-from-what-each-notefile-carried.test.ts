import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe("journeys, notefile schemas and the AWS role configuration", () => {
  let hub: TestHub;
  let device: string;
  const T = Date.UTC(2026, 0, 1) / 1000;

  /** A `_track.qo` event as the module writes it: `journey` (its start, Unix seconds) and `jcount`. */
  const track = (whenSec: number, body: Record<string, unknown>) =>
    hub.services.events.record({
      projectUid: hub.projectUid,
      deviceUid: device,
      file: "_track.qo",
      whenSec,
      data: { req: "note.add", body },
    });

  beforeAll(async () => {
    hub = await TestHub.start();
    device = (await hub.device()).uid;
    for (let i = 1; i <= 3; i++) await track(T + 60 * i, { journey: T, jcount: i, velocity: 2 });
    for (let i = 1; i <= 2; i++) await track(T + 7200 + 60 * i, { journey: T + 7200, jcount: i });
    // A tracking note outside any journey (a module that does not number them) is in none.
    await track(T + 9000, { velocity: 0 });
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("lists a device's journeys, most recent first, with their event counts and spans", async () => {
    const res = await hub.get(hub.p(`/devices/${device}/journeys`), { as: "viewer" });
    expect(res.json).toEqual({
      journeys: [
        {
          journey_id: T + 7200,
          total_events: 2,
          start_date: "2026-01-01T02:01:00Z",
          end_date: "2026-01-01T02:02:00Z",
        },
        {
          journey_id: T,
          total_events: 3,
          start_date: "2026-01-01T00:01:00Z",
          end_date: "2026-01-01T00:03:00Z",
        },
      ],
      has_more: false,
    });
    const early = await hub.get(hub.p(`/devices/${device}/journeys?endDate=${T + 3600}`));
    expect(early.json.journeys.map((j: { journey_id: number }) => j.journey_id)).toEqual([T]);
  });

  it("gives one journey's events in order, a page at a time", async () => {
    const first = await hub.get(hub.p(`/devices/${device}/journeys/${T}?pageSize=2`));
    expect(first.json).toMatchObject({
      journey_id: T,
      start_date: "2026-01-01T00:01:00Z",
      end_date: "2026-01-01T00:03:00Z",
      journey: { has_more: true },
    });
    expect(first.json.journey.events.map((e: { body: { jcount: number } }) => e.body.jcount)).toEqual([1, 2]);
    const second = await hub.get(hub.p(`/devices/${device}/journeys/${T}?pageSize=2&pageNum=2`));
    expect(second.json.journey).toMatchObject({
      has_more: false,
      events: [{ file: "_track.qo", body: { jcount: 3 } }],
    });
    expectErrorBody(await hub.get(hub.p(`/devices/${device}/journeys/${T + 1}`)), 404);
    expectErrorBody(await hub.get(hub.p(`/devices/${device}/journeys/yesterday`)), 400);
    expectErrorBody(await hub.get(hub.p(`/devices/dev:999/journeys`)), 404);
  });

  it("describes each notefile's body fields with their types, nested ones too", async () => {
    await hub.services.events.record({
      projectUid: hub.projectUid,
      deviceUid: device,
      file: "sensors.qo",
      data: { req: "note.add", body: { temp: 21.5, label: "a", tags: ["x"], inner: { ok: true } } },
    });
    const schemas = (await hub.get(hub.p("/schemas"))).json as {
      notefile: string;
      properties: { name: string; type: string; properties?: unknown[]; items?: unknown[] }[];
    }[];
    expect(schemas.map((s) => s.notefile)).toEqual(["_track.qo", "sensors.qo"]);
    const sensors = schemas[1]!.properties;
    expect(sensors.map((p) => [p.name, p.type])).toEqual([
      ["temp", "number"],
      ["label", "string"],
      ["tags", "array"],
      ["inner", "object"],
    ]);
    expect(sensors[2]!.items).toMatchObject([{ type: "string" }]);
    expect(sensors[3]!.properties).toMatchObject([{ name: "ok", type: "boolean" }]);
    expect(schemas[0]!.properties.map((p) => p.name)).toEqual(["velocity", "journey", "jcount"]);
  });

  it("answers the AWS role configuration of a hub without an AWS account: no account, the project's external ID", async () => {
    const res = await hub.get(hub.p("/aws-role-config"));
    expect(res.json.aws_account_id).toBe("");
    expect(res.json.external_id).toMatch(/^[0-9a-f]{32}$/);
    expect((await hub.get(hub.p("/aws-role-config"))).json).toEqual(res.json);
  });
});
