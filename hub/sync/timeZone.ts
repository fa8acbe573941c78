import tzLookup from "@photostructure/tz-lookup";
import type { DevicePlace } from "../../protocol/messages.js";

/** The IANA time zone at a place (`Europe/Berlin`), or undefined when it cannot be told. */
export type ZoneLookup = (lat: number, lon: number) => string | undefined;

/**
 * The place-to-zone lookup of `@photostructure/tz-lookup` (time-zone boundary data kept up to
 * date by its maintainers): the only code that knows the package.
 */
export function packagedZoneLookup(): ZoneLookup {
  return (lat, lon) => {
    try {
      const zone: unknown = tzLookup(lat, lon);
      return typeof zone === "string" && zone !== "" ? zone : undefined;
    } catch {
      return undefined;
    }
  };
}

/** Locales whose short zone names are abbreviations for their regions (not `GMT+1`). */
const ABBREVIATION_LOCALES = ["en-US", "en-GB", "en-IN", "en-AU", "en-CA", "en-NZ", "en-ZA"];

function part(zone: string, locale: string, style: "short" | "longOffset", at: Date): string | undefined {
  return new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: style })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value;
}

/** The zone's abbreviation at a time (`CET`, `EST`), or its offset form (`GMT+9`) where no locale has one. */
export function zoneAbbreviation(zone: string, at: Date): string {
  let fallback: string | undefined;
  for (const locale of ABBREVIATION_LOCALES) {
    const name = part(zone, locale, "short", at);
    if (!name) continue;
    fallback ??= name;
    if (!/^(GMT|UTC)[+-]/.test(name)) return name;
  }
  return fallback ?? "UTC";
}

/** Minutes the zone is ahead of UTC at a time. */
export function zoneOffsetMinutes(zone: string, at: Date): number {
  const text = part(zone, "en-US", "longOffset", at) ?? "GMT";
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(text);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === "-" ? -minutes : minutes;
}

/** True when the runtime knows the IANA zone name. */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the hub places a device at `lat`/`lon` (the open reply's `where`): the coordinates, and
 * the zone as `card.time` reports it (`CET,Europe/Berlin`) with its offset now; `UTC,Unknown`
 * when the zone cannot be told.
 */
export function devicePlace(lat: number, lon: number, at: Date, lookup: ZoneLookup | undefined): DevicePlace {
  const zone = lookup?.(lat, lon);
  if (!zone || !knownZone(zone)) return { lat, lon, zone: "UTC,Unknown", minutes: 0 };
  return { lat, lon, zone: `${zoneAbbreviation(zone, at)},${zone}`, minutes: zoneOffsetMinutes(zone, at) };
}
