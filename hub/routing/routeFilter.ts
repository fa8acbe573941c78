import { isJsonObject } from "../../core/json.js";
import type { RouteRecord } from "../store/RouteStore.js";

/** A notefile name against a filter entry: the name itself, or a pattern with `*` (any run of characters). */
export function fileMatches(file: string, pattern: string): boolean {
  if (!pattern.includes("*")) return file === pattern;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(file);
}

/**
 * Whether a route takes events of this notefile, per its `filter`: `all` (or unset), `include`
 * (only the files listed) or `exclude` (all but those). System notefiles (names starting with
 * `_`) need `system_notefiles`, unless an include filter names them.
 */
export function routeTakesFile(route: RouteRecord, file: string): boolean {
  const filter = isJsonObject(route.settings.filter) ? route.settings.filter : {};
  const type = typeof filter.type === "string" ? filter.type : "";
  const files = Array.isArray(filter.files)
    ? filter.files.filter((f): f is string => typeof f === "string")
    : [];
  const listed = files.some((pattern) => fileMatches(file, pattern));
  const include = type === "include" || type === "inclusion";
  const exclude = type === "exclude" || type === "exclusion";
  if (file.startsWith("_") && filter.system_notefiles !== true && !(include && listed)) return false;
  if (include) return listed;
  if (exclude) return !listed;
  return true;
}

/** The fleets a route is limited to (empty: every device). */
export function routeFleets(route: RouteRecord): string[] {
  const fleets = route.settings.fleets;
  return Array.isArray(fleets) ? fleets.filter((f): f is string => typeof f === "string") : [];
}

/** Whether a device in `deviceFleets` is served by the route. */
export function routeTakesDevice(route: RouteRecord, deviceFleets: readonly string[]): boolean {
  const fleets = routeFleets(route);
  return fleets.length === 0 || fleets.some((f) => deviceFleets.includes(f));
}
