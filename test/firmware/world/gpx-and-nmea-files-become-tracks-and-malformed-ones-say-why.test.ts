import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { distanceMeters } from "../../../firmware/world/geo.js";
import { parseGpx } from "../../../runtime/tracks/parseGpx.js";
import { parseNmea } from "../../../runtime/tracks/parseNmea.js";
import { parseTrack } from "../../../runtime/tracks/parseTrack.js";
import { Track } from "../../../firmware/world/Track.js";
import { TrackParseError } from "../../../firmware/world/TrackParseError.js";
import { gpxDocument, nmea, nmeaFix, twoHourDrive } from "./support/trackFiles.js";

const T0 = Date.UTC(2026, 0, 1, 8, 0, 0);

function errorOf(fn: () => unknown): TrackParseError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TrackParseError);
    return error as TrackParseError;
  }
  throw new Error("expected a TrackParseError");
}

describe("GPX documents", () => {
  it("give their track points with elevation and times, in document order", () => {
    const text = gpxDocument([
      { lat: 42.5, lon: -70.9, alt: 12, time: T0 },
      { lat: 42.501, lon: -70.9, alt: 13, time: T0 + 60_000 },
      { lat: 42.502, lon: -70.9, time: T0 + 120_000 },
    ]);
    expect(parseGpx(text)).toEqual([
      { lat: 42.5, lon: -70.9, alt: 12, time: T0 },
      { lat: 42.501, lon: -70.9, alt: 13, time: T0 + 60_000 },
      { lat: 42.502, lon: -70.9, time: T0 + 120_000 },
    ]);
    const track = parseTrack(text);
    expect(track.durationMs).toBe(120_000);
    expect(track.distanceMeters).toBeCloseTo(222.4, 0);
  });

  it("fall back to route points, then waypoints, and accept either quote and self-closing points", () => {
    const route = `<gpx><rte><rtept lon='10.5' lat='50'/><rtept lat="50.01" lon="10.5"></rtept></rte></gpx>`;
    expect(parseGpx(route)).toEqual([
      { lat: 50, lon: 10.5 },
      { lat: 50.01, lon: 10.5 },
    ]);
    expect(parseGpx(`<gpx><wpt lat="1" lon="2"/></gpx>`)).toEqual([{ lat: 1, lon: 2 }]);
  });

  it("without times are travelled at a given speed", () => {
    const text = `<gpx><trk><trkseg><trkpt lat="0" lon="0"/><trkpt lat="0" lon="0.01"/></trkseg></trk></gpx>`;
    expect(errorOf(() => parseTrack(text)).message).toMatch(/no times: give a speed/);
    const track = parseTrack(text, { speed: 10 });
    expect(track.durationMs).toBeCloseTo((track.distanceMeters / 10) * 1000, 6);
    expect(track.stateAt(track.durationMs / 2).speed).toBeCloseTo(10, 6);
  });

  it.each([
    ["<trk><trkpt lat='1' lon='2'/></trk>", /^not a GPX document/],
    ["<gpx></gpx>", /no track points, route points or waypoints/],
    ['<gpx>\n<trkpt lat="91" lon="0"/></gpx>', /^line 2: <trkpt> 1: lat 91 is not in -90..90/],
    ['<gpx><trkpt lat="x" lon="0"/></gpx>', /lat "x" is not a number/],
    ['<gpx><trkpt lon="0"/></gpx>', /needs both lat and lon/],
    [
      '<gpx><trkpt lat="1" lon="2"><time>yesterday</time></trkpt></gpx>',
      /<time> "yesterday" is not an ISO 8601 time/,
    ],
    ['<gpx><trkpt lat="1" lon="2"><ele>high</ele></trkpt></gpx>', /<ele> "high" is not a number/],
    ['<gpx><trkpt lat="1" lon="2">', /<trkpt> has no <\/trkpt>/],
    [
      gpxDocument([
        { lat: 1, lon: 1, time: T0 + 1000 },
        { lat: 1, lon: 1, time: T0 },
      ]),
      /point 2: its time is earlier than the point before it/,
    ],
  ])("that are malformed say what is wrong and where: %s", (text, message) => {
    expect(errorOf(() => parseTrack(text, { speed: 1 })).message).toMatch(message);
  });
});

describe("NMEA logs", () => {
  it("merge the RMC and GGA sentences of each fix, with speed, course, satellites and HDOP", () => {
    const [rmc, gga] = nmeaFix({ lat: 48.1173, lon: 11.5167, alt: 545.4, time: T0 }, 22.4, 84.4);
    const points = parseNmea([rmc, nmea("GPGSV,3,1,11,03,03,111,00"), gga].join("\r\n"));
    expect(points).toHaveLength(1);
    const p = points[0]!;
    expect(p.lat).toBeCloseTo(48.1173, 4);
    expect(p.lon).toBeCloseTo(11.5167, 4);
    expect(p).toMatchObject({ time: T0, alt: 545.4, satellites: 8, dop: 0.9, course: 84.4 });
    expect(p.speed).toBeCloseTo(22.4 * 0.514444, 4);
  });

  it("skip sentences without a fix and roll over midnight", () => {
    const late = Date.UTC(2026, 0, 1, 23, 59, 50);
    const lines = [
      ...nmeaFix({ lat: 1, lon: 1, time: late }),
      nmea("GPRMC,235955.00,V,,,,,,,010126,,,N"),
      nmea("GPGGA,000005.00,0100.0000,N,00100.0000,E,1,05,1.1,10.0,M,,M,,"),
    ];
    const points = parseNmea(lines.join("\n"));
    expect(points.map((p) => p.time)).toEqual([late, late + 15_000]);
  });

  it("read Southern and Western hemispheres as negative degrees", () => {
    const points = parseNmea(nmeaFix({ lat: -33.8688, lon: -151.2093, time: T0 }).join("\n"));
    expect(points[0]!.lat).toBeCloseTo(-33.8688, 4);
    expect(points[0]!.lon).toBeCloseTo(-151.2093, 4);
  });

  it.each([
    ["hello", /^line 1: "hello" is not an NMEA sentence/],
    ["$GPRMC,120000.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*00", /^line 1: checksum mismatch/],
    [nmea("GPRMC,120000.00,A,4807.038,X,01131.000,E,0,0,230394,,"), /latitude hemisphere "X" is not N or S/],
    [nmea("GPRMC,120000.00,A,4899.000,N,01131.000,E,0,0,230394,,"), /latitude "4899.000" is out of range/],
    [nmea("GPRMC,126000.00,A,4807.038,N,01131.000,E,0,0,230394,,"), /time "126000.00" is out of range/],
    [nmea("GPRMC,120000.00,V,,,,,,,230394,,"), /no position fix/],
  ])("that are malformed say what is wrong and where: %s", (text, message) => {
    expect(errorOf(() => parseNmea(text)).message).toMatch(message);
  });

  it("and files of neither kind are told apart from the start", () => {
    expect(errorOf(() => parseTrack("   ")).message).toMatch(/the track file is empty/);
    expect(errorOf(() => parseTrack("lat,lon\n1,2")).message).toMatch(/^not a track file: expected a GPX/);
  });
});

describe("a track", () => {
  const points = twoHourDrive({
    start: { lat: 42.5, lon: -71 },
    t0: T0,
    parkedBefore: 20,
    driving: 60,
    speed: 15,
  });
  const track = parseTrack(gpxDocument(points));

  it("is interpolated between its points, with the leg's speed and course", () => {
    expect(track.durationMs).toBe(2 * 3_600_000);
    const parked = track.stateAt(10 * 60_000);
    expect(parked).toMatchObject({ lat: 42.5, lon: -71, speed: 0 });
    const driving = track.stateAt(50 * 60_000 + 5_000);
    expect(driving.speed).toBeCloseTo(15, 1);
    expect(driving.course).toBeCloseTo(90, 0);
    expect(distanceMeters(points[0]!, driving)).toBeCloseTo(15 * (30 * 60 + 5), -1);
    const end = track.stateAt(119 * 60_000);
    expect(end.speed).toBe(0);
    expect(end.lat).toBeCloseTo(points.at(-1)!.lat, 6);
    expect(end.lon).toBeCloseTo(points.at(-1)!.lon, 6);
  });

  it("refuses points it could not play", () => {
    expect(errorOf(() => Track.fromPoints([])).message).toMatch(/no points/);
    expect(errorOf(() => Track.fromPoints([{ lat: 0, lon: 200, time: 0 }])).message).toMatch(/longitude 200/);
    expect(
      errorOf(() =>
        Track.fromPoints([
          { lat: 0, lon: 0, time: 0 },
          { lat: 0, lon: 0 },
        ]),
      ).message,
    ).toMatch(/1 of the 2 points have a time/);
  });
});

describe("any input", () => {
  const fixLines = nmeaFix({ lat: 42.1, lon: -70.2, time: T0 }, 3, 45);
  const validTexts = [
    gpxDocument([
      { lat: 42.5, lon: -70.9, time: T0 },
      { lat: 42.6, lon: -70.8, time: T0 + 60_000 },
    ]),
    [...fixLines, ...nmeaFix({ lat: 42.11, lon: -70.21, time: T0 + 5000 })].join("\n"),
  ];

  /** Parses and checks that a result is playable; anything else than TrackParseError fails. */
  function parsesOrSaysWhy(text: string): void {
    try {
      const track = parseTrack(text, { speed: 5 });
      for (const at of [0, track.durationMs / 3, track.durationMs]) {
        const s = track.stateAt(at);
        expect(Number.isFinite(s.lat) && Number.isFinite(s.lon) && Number.isFinite(s.speed)).toBe(true);
      }
    } catch (error) {
      if (!(error instanceof TrackParseError)) throw error;
      expect(error.message.length).toBeGreaterThan(0);
    }
  }

  it("gives a playable track or a TrackParseError, never a crash", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => parsesOrSaysWhy(text)),
      { numRuns: 1500 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(..."<>/=\"' gpxtrkpt latlon0123456789.-$GPRMCA,*\n") }),
        (text) => parsesOrSaysWhy(text),
      ),
      { numRuns: 1500 },
    );
  });

  it("still parses or says why when valid files are cut or corrupted anywhere", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...validTexts),
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 8 }),
        (text, a, b, insert) => {
          const i = a % (text.length + 1);
          const j = Math.min(text.length, i + (b % 12));
          parsesOrSaysWhy(text.slice(0, i) + insert + text.slice(j));
          parsesOrSaysWhy(text.slice(0, i));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
