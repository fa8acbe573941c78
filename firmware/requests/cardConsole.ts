import type { JsonObject } from "../../core/json.js";
import { argumentsIncompatible, sleepModeInvalid, sleepSecondsInvalid, traceModeInvalid } from "../errors.js";
import type { Notebox } from "../storage/Notebox.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/*
 * `card.log`, `card.trace` and `card.sleep`: what a host asks of the module's console and of the
 * WiFi module's deep sleep (card.log: note-c's NotePrint; card.trace and card.sleep: their req
 * and rsp schemas in the public notecard-schema).
 */

/** Notebox config key of the `card.sleep` settings (`SleepSettings`). */
export const SLEEP_KEY = "card.sleep";

interface SleepSettings {
  readonly on?: boolean;
  /** Idle seconds before the module sleeps (schema minimum 30). */
  readonly seconds?: number;
  /** `accel`: movement wakes the module. */
  readonly mode?: string;
}

/** The modules (by the Notebox each boot opens) in trace mode: RAM, so a restart ends it. */
const tracing = new WeakSet<Notebox>();

/** Whether `card.trace mode:on` is in force (until `mode:off` or the next restart). */
export function traceRequested(notebox: Notebox): boolean {
  return tracing.has(notebox);
}

/** `card.log`: note-c's NotePrint sends host text to the module's console (its log here). */
function cardLog({ args, module }: RequestContext): JsonObject {
  const text = args.string("text");
  if (text) module.log.info("host", { text });
  return {};
}

/** `card.trace`: `mode:on` logs every request and reply, as the module's trace console shows. */
function cardTrace({ args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  if (mode === "on") tracing.add(module.notebox);
  else if (mode === "off") tracing.delete(module.notebox);
  else if (mode !== undefined && mode !== "") throw traceModeInvalid(mode);
  return {};
}

/**
 * `card.sleep` (WiFi module only): the deep sleep settings, kept in flash and answered as the rsp
 * schema has them. The module stays responsive here: the sleep itself is not modelled
 * (docs/differences.md).
 */
function cardSleep({ args, module }: RequestContext): JsonObject {
  const on = args.bool("on");
  const off = args.bool("off");
  if (on && off) throw argumentsIncompatible("card.sleep", "on", "off");
  const seconds = args.int("seconds");
  if (seconds !== undefined && seconds !== -1 && seconds < 30) throw sleepSecondsInvalid(seconds);
  const mode = args.string("mode");
  if (mode !== undefined && mode !== "accel" && mode !== "-accel") throw sleepModeInvalid(mode);
  const current = module.notebox.config<SleepSettings>(SLEEP_KEY) ?? {};
  const next: SleepSettings = {
    ...current,
    ...(on || off ? { on } : {}),
    ...(seconds !== undefined ? { seconds: seconds === -1 ? undefined : seconds } : {}),
    ...(mode !== undefined ? { mode: mode === "accel" ? "accel" : undefined } : {}),
  };
  const changed = JSON.stringify(next) !== JSON.stringify(current);
  if (changed) module.notebox.setConfig(SLEEP_KEY, JSON.parse(JSON.stringify(next)));
  return {
    ...(next.on ? { on: true } : { off: true }),
    ...(next.seconds !== undefined ? { seconds: next.seconds } : {}),
    ...(next.mode ? { mode: next.mode } : {}),
  };
}

export const cardConsoleRequests: RequestTable = {
  "card.log": cardLog,
  "card.trace": cardTrace,
  // The schema lists card.sleep on WIFI alone (the ESP32-based module).
  "card.sleep": { variants: ["wifi"], handler: cardSleep },
};
