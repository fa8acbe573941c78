import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packagedPlaceNames } from "../../../hub/sync/placeNames.js";
import { triangulate } from "../../../hub/sync/syncDocuments.js";
import type { TowerRecord } from "../../../protocol/messages.js";
import { SyncFixture } from "./support/syncFixture.js";

const tower = (lat: number, lon: number, rssi: number, cid = 1): TowerRecord => ({
  mcc: 310,
  mnc: 410,
  lac: 7,
  cid,
  rat: "lte",
  rssi,
  lat,
  lon,
});

describe("places the hub names", () => {
  it("are named after the nearest town, with its country; a section gives way to its town; the sea has no name", async () => {
    const name = await packagedPlaceNames();
    expect(name(42.3601, -71.0589)).toEqual({ name: "Boston, MA", country: "US" });
    expect(name(52.52, 13.405)).toEqual({ name: "Berlin", country: "DE" });
    expect(name(48.8566, 2.3522)?.country).toBe("FR");
    expect(name(-33.8688, 151.2093)?.country).toBe("AU");
    // Longitudes past the date line wrap.
    expect(name(42.3601, -71.0589 + 360)).toEqual({ name: "Boston, MA", country: "US" });
    expect(name(0, -30)).toBeUndefined(); // the middle of the Atlantic
    expect(name(Number.NaN, 0)).toBeUndefined();
  });

  it("are triangulated between towers, the stronger counting more; without towers nowhere", () => {
    expect(triangulate({ mode: "cell", towers: [tower(10, 20, -70)], wifi: [], time: 0 })).toEqual({
      lat: 10,
      lon: expect.closeTo(20, 9),
      points: 1,
    });
    const even = triangulate({
      mode: "cell",
      towers: [tower(0, 0, -80), tower(2, 2, -80)],
      wifi: [],
      time: 0,
    })!;
    expect(even.lat).toBeCloseTo(1, 9);
    expect(even.lon).toBeCloseTo(1, 9);
    // 6 dB stronger: twice the weight.
    const strong = triangulate({
      mode: "cell",
      towers: [tower(0, 0, -74), tower(3, 0, -80)],
      wifi: [],
      time: 0,
    })!;
    expect(strong.lat).toBeCloseTo(1, 1);
    // Either side of the date line: the middle is on it, not at Greenwich.
    const dateLine = triangulate({
      mode: "cell",
      towers: [tower(0, 179.9, -80), tower(0, -179.9, -80)],
      wifi: [],
      time: 0,
    })!;
    expect(Math.abs(dateLine.lon)).toBeCloseTo(180, 6);
    expect(
      triangulate({
        mode: "wifi",
        towers: [],
        wifi: [{ ssid: "a", bssid: "00:11:22:33:44:55", rssi: -50, channel: 6 }],
        time: 1,
      }),
    ).toBeUndefined();
  });
});

describe("a session's places", () => {
  let hub: SyncFixture;
  beforeAll(async () => {
    hub = await SyncFixture.start("in process");
  });
  afterAll(async () => hub.close());

  it("refuses a tower or a scan that is not one with {bad-request}, naming the field", async () => {
    const module = await hub.module();
    for (const [context, field] of [
      [{ tower: { ...tower(1, 2, -70), lat: 91 } }, "where is not a place on Earth"],
      [{ tower: { ...tower(1, 2, -70), cid: -1 } }, "context.tower.cid"],
      [{ triangulate: { mode: "cell", towers: "x", wifi: [], time: 0 } }, "context.triangulate.towers"],
      [
        {
          triangulate: {
            mode: "cell",
            towers: Array.from({ length: 65 }, () => tower(1, 2, -70)),
            wifi: [],
            time: 0,
          },
        },
        "more than 64",
      ],
      [
        { triangulate: { mode: "wifi", towers: [], wifi: [{ ssid: 1 }], time: 0 } },
        "context.triangulate.wifi[0].ssid",
      ],
    ] as const) {
      const reply = await module.open({ context: context as never });
      expect(reply.err, JSON.stringify(context)).toMatch(/^\{bad-request\}/);
      expect(reply.err).toContain(field);
    }
  });

  it("go to the device record: the serving tower and the triangulated place, named", async () => {
    const module = await hub.module();
    const reply = await module.open({
      context: {
        tower: tower(42.3601, -71.0589, -70, 99),
        triangulate: {
          mode: "cell",
          towers: [tower(42.35, -71.06, -70), tower(42.37, -71.05, -76, 2)],
          wifi: [],
          time: 0,
        },
      },
    });
    expect(reply.err).toBeUndefined();
    const device = (await hub.services.store.devices.getDevice(module.device))!;
    expect(device.details.towerInfo).toEqual({ mcc: 310, mnc: 410, lac: 7, cell_id: 99 });
    expect(device.details.towerLocation).toMatchObject({
      name: "Boston, MA",
      country: "US",
      latitude: 42.3601,
    });
    expect(device.details.triangulatedLocation).toMatchObject({ country: "US" });
    expect(device.details.triangulatedLocation!.latitude).toBeGreaterThan(42.35);
    expect(device.details.triangulatedLocation!.latitude).toBeLessThan(42.37);
  });
});
