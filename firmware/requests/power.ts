import type { JsonObject } from "../../core/json.js";
import { argumentOutOfRange } from "../errors.js";
import { POWER_KEY, type PowerSettings } from "../power/PowerMonitor.js";
import { simError, type SimError } from "../SimError.js";
import type { VariantName } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** card.power.req.notecard.api.json `skus`: CELL, CELL+WIFI, WIFI. */
const WITH_POWER: readonly VariantName[] = ["cell", "cell-wifi", "wifi"];

export const powerRequests: RequestTable = {
  // The sample always shows milliamp_hours, 0 after a reset too.
  "card.power": { handler: cardPower, variants: WITH_POWER, keep: ["milliamp_hours"] },
};

/** Without a Mojo there is nothing to read (ours: the real module's answer is not published). */
const noMojo = (): SimError =>
  simError("card.power: no Mojo power monitor is attached (it measures the module's supply) {not-supported}");

/**
 * `card.power` (card.power.req/rsp schemas): the Mojo's reading, `temperature`, `voltage` and
 * `milliamp_hours` used since the last `reset:true`; `minutes` (or `hours`) sets how often a
 * reading is logged to `_log.qo` (default 720; -1 or 0 goes back to it).
 */
function cardPower({ name, args, module }: RequestContext): JsonObject {
  const minutes = args.int("minutes");
  const hours = args.int("hours");
  const reset = args.bool("reset");
  if (minutes !== undefined && minutes < -1)
    throw argumentOutOfRange(name, "minutes", "minutes > 0, or -1", minutes);
  if (hours !== undefined && hours < -1) throw argumentOutOfRange(name, "hours", "hours > 0, or -1", hours);
  const monitor = module.sensors.power;
  if (!monitor.attached) throw noMojo();
  let next: PowerSettings = reset ? monitor.reset() : monitor.settings;
  const cadence = minutes ?? (hours !== undefined && hours > 0 ? hours * 60 : hours);
  if (cadence !== undefined) {
    const { minutes: _was, ...rest } = next;
    next = cadence > 0 ? { ...rest, minutes: cadence } : rest;
  }
  if (JSON.stringify(next) !== JSON.stringify(monitor.settings)) {
    module.notebox.setConfig(POWER_KEY, Object.keys(next).length > 0 ? next : undefined);
    if (cadence !== undefined) monitor.reconfigure();
  }
  return monitor.reading();
}
