import {
  argumentOutOfRange,
  argumentsIncompatible,
  latLonTogether,
  queueFileRequired,
  voltageVariableInvalid,
} from "../errors.js";
import { storeRecord } from "../config/compactRecord.js";
import { parsePeriodVariable } from "../sensors/voltageVariableSetting.js";
import { checkNotefileName } from "../storage/notefileNames.js";
import { isLatitude, isLongitude } from "../world/geo.js";
import type { Args } from "./Args.js";

/** Argument helpers shared by the location, motion, temperature and AUX requests. */

/** `start` / `stop` flags, refused together. */
export function startStop(request: string, args: Args): { start: boolean; stop: boolean } {
  const start = args.bool("start");
  const stop = args.bool("stop");
  if (start && stop) throw argumentsIncompatible(request, "start", "stop");
  return { start, stop };
}

/** `lat` and `lon`, both or neither, in range. */
export function latLon(request: string, args: Args): { lat: number; lon: number } | undefined {
  const lat = args.number("lat");
  const lon = args.number("lon");
  if (lat === undefined && lon === undefined) return undefined;
  if (lat === undefined || lon === undefined) throw latLonTogether(request);
  if (!isLatitude(lat)) throw argumentOutOfRange(request, "lat", "-90 to 90 degrees", lat);
  if (!isLongitude(lon)) throw argumentOutOfRange(request, "lon", "-180 to 180 degrees", lon);
  return { lat, lon };
}

/**
 * A whole-number setting: undefined when absent, `null` for a reset (`-1`), else the value, which
 * must be at least `min`.
 */
export function intSetting(
  request: string,
  args: Args,
  name: string,
  min: number,
): number | null | undefined {
  const value = args.int(name);
  if (value === undefined) return undefined;
  if (value === -1) return null;
  if (value < min) throw argumentOutOfRange(request, name, `at least ${min}, or -1 to reset`, value);
  return value;
}

/** Applies an intSetting result to a current value. */
export function updated(current: number | undefined, change: number | null | undefined): number | undefined {
  if (change === undefined) return current;
  return change === null ? undefined : change;
}

/** An outbound queue a feature writes to (`file`); "" or "-" means the default (undefined). */
export function queueFile(request: string, args: Args): string | null | undefined {
  const file = args.string("file");
  if (file === undefined) return undefined;
  if (file === "" || file === "-") return null;
  const kind = checkNotefileName(file);
  if (!kind.queue || kind.direction !== "out") throw queueFileRequired(request, file);
  return file;
}

/** A voltage-variable period (`vseconds`, `status`): undefined absent, null cleared, else the text. */
export function periodVariable(request: string, args: Args, name: string): string | null | undefined {
  const text = args.string(name);
  if (text === undefined) return undefined;
  if (text === "" || text === "-") return null;
  const parsed = parsePeriodVariable(text);
  if ("problem" in parsed) throw voltageVariableInvalid(request, name, text, parsed.problem);
  return text;
}

/** Stores a settings record (compacted) and says whether it changed. */
export function storeIfChanged(
  box: { config<V>(key: string): V | undefined; setConfig(key: string, value: unknown): void },
  key: string,
  value: object,
): boolean {
  const before = JSON.stringify(box.config(key));
  storeRecord(box, key, value);
  return JSON.stringify(box.config(key)) !== before;
}
