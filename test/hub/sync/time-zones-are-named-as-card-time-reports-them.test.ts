import { describe, expect, it } from "vitest";
import {
  devicePlace,
  packagedZoneLookup,
  zoneAbbreviation,
  zoneOffsetMinutes,
} from "../../../hub/sync/timeZone.js";

const winter = new Date(Date.UTC(2026, 0, 15));
const summer = new Date(Date.UTC(2026, 6, 15));

describe("time zones of the open reply", () => {
  it("abbreviates zones as the regions do, with their offset at the time", () => {
    expect(zoneAbbreviation("Europe/Berlin", winter)).toBe("CET");
    expect(zoneAbbreviation("Europe/Berlin", summer)).toBe("CEST");
    expect(zoneAbbreviation("America/New_York", winter)).toBe("EST");
    expect(zoneAbbreviation("Asia/Kolkata", winter)).toBe("IST");
    expect(zoneAbbreviation("Asia/Tokyo", winter)).toMatch(/^(JST|GMT\+9)$/);
    expect(zoneOffsetMinutes("Europe/Berlin", summer)).toBe(120);
    expect(zoneOffsetMinutes("America/New_York", winter)).toBe(-300);
    expect(zoneOffsetMinutes("Asia/Kolkata", winter)).toBe(330);
    expect(zoneOffsetMinutes("UTC", winter)).toBe(0);
  });

  it("places a device in UTC when its zone cannot be told, and in its zone when it can", () => {
    expect(devicePlace(1, 2, winter, undefined)).toEqual({ lat: 1, lon: 2, zone: "UTC,Unknown", minutes: 0 });
    expect(devicePlace(1, 2, winter, () => "Mars/Olympus")).toMatchObject({ zone: "UTC,Unknown" });
    // The time-zone package places Berlin in Berlin, and the open sea in no zone a city names.
    const lookup = packagedZoneLookup();
    expect(devicePlace(52.52, 13.405, winter, lookup)).toMatchObject({
      zone: "CET,Europe/Berlin",
      minutes: 60,
    });
    expect(devicePlace(-33.9, 18.4, winter, lookup)).toMatchObject({
      zone: "SAST,Africa/Johannesburg",
      minutes: 120,
    });
  });
});
