import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CSV_FIELDS } from "../../../hub/api/eventFields.js";
import type { EventRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { EventWorld } from "./support/eventWorld.js";
import { parseCsv } from "./support/parseCsv.js";

/** What a CSV cell holds for a value: text as is, numbers and booleans as JSON writes them, objects as JSON. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function at(value: unknown, path: string): unknown {
  let v = value;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const ALIAS: Record<string, string> = { eventUID: "event", deviceUID: "device" };

describe("Get Project Events as CSV (format=csv)", () => {
  let hub: TestHub;
  let world: EventWorld;
  let ordered: EventRecord[];

  beforeAll(async () => {
    hub = await TestHub.start();
    world = await EventWorld.build(hub, { count: 90, seed: 5 });
    ordered = world.sorted(world.events, "captured", false);
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const expectedRows = (events: EventRecord[], columns: readonly string[]): string[][] =>
    events.map((e) => {
      const view = EventWorld.view(e);
      return columns.map((c) => {
        const [head, ...rest] = c.split(".");
        return cell(at(view, [ALIAS[head!] ?? head, ...rest].join(".")));
      });
    });

  it("has the selected fields as columns, in the order given, and one row per event of the page", async () => {
    const columns = [
      "eventUID",
      "deviceUID",
      "when",
      "best_location_type",
      "best_lat",
      "body.temperature",
      "body.note",
    ];
    const res = await hub.get(hub.p(`/events?format=csv&pageSize=40&selectFields=${columns.join(",")}`), {
      as: "viewer",
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["x-has-more"]).toBe("true");
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual(columns);
    expect(rows.slice(1)).toEqual(expectedRows(ordered.slice(0, 40), columns));
    // Quotes, commas and line breaks in a value survive the round trip.
    expect(rows.some((r) => r[6] === 'a "quoted", comma\nand a new line')).toBe(true);
  });

  it("without selectFields has the documented default columns, objects as JSON text", async () => {
    const res = await hub.get(hub.p("/events?format=csv&pageSize=100&sortOrder=desc"));
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([...DEFAULT_CSV_FIELDS]);
    expect(rows.slice(1)).toEqual(expectedRows([...ordered].reverse(), DEFAULT_CSV_FIELDS));
    expect(res.headers["x-has-more"]).toBe("false");
    const body = rows[1]![DEFAULT_CSV_FIELDS.indexOf("body")]!;
    expect(JSON.parse(body)).toEqual(ordered[ordered.length - 1]!.data.body);
  });

  it("takes the same filters and paging as JSON; an empty page is the header alone", async () => {
    const device = world.devices[1]!.uid;
    const json = await hub.get(
      hub.p(`/events?deviceUID=${device}&files=data.qo,sensors.qo&pageSize=7&pageNum=2`),
    );
    const csv = await hub.get(
      hub.p(
        `/events?deviceUID=${device}&files=data.qo,sensors.qo&pageSize=7&pageNum=2&format=csv&selectFields=eventUID`,
      ),
    );
    expect(
      parseCsv(csv.text)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(json.json.events.map((e: { event: string }) => e.event));
    expect(csv.headers["x-has-more"]).toBe(String(json.json.has_more));
    const empty = await hub.get(hub.p("/events?format=csv&files=none.qo&selectFields=eventUID,when"));
    expect(empty.text).toBe("eventUID,when\n");
    expect(empty.headers["x-has-more"]).toBe("false");
    const asJson = await hub.get(hub.p("/events?format=json&pageSize=1"));
    expect(asJson.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("refuses a bad format or selectFields with 400", async () => {
    expectErrorBody(await hub.get(hub.p("/events?format=CSV")), 400);
    expectErrorBody(await hub.get(hub.p("/events?format=csv&selectFields=a..b")), 400);
    // Blank names between commas are skipped.
    expect(parseCsv((await hub.get(hub.p("/events?format=csv&selectFields=a,,when"))).text)[0]).toEqual([
      "a",
      "when",
    ]);
  });
});
