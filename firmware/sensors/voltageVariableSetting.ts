import type { ModuleCore } from "../ModuleCore.js";
import { supplyState } from "../power/VoltagePolicy.js";
import { VoltageVariable } from "../power/VoltageVariable.js";

/**
 * A voltage-variable period (`vseconds`, `card.temp status`): `state:value` pairs, optionally
 * ending with a bare value for every other state (`usb:15;high:30;normal:60;720`, the vendor's
 * `card.temp` example). Parsed, or what is wrong with it.
 */
export function parsePeriodVariable(
  text: string,
): { variable?: VoltageVariable; fallback?: number } | { problem: string } {
  const segments = text.split(";");
  const last = segments[segments.length - 1]!;
  let fallback: number | undefined;
  if (/^\d{1,9}$/.test(last)) {
    fallback = Number(last);
    segments.pop();
  }
  if (segments.length === 0) return fallback === undefined ? { problem: "it is empty" } : { fallback };
  const parsed = VoltageVariable.parse(segments.join(";"), "integer");
  if (!(parsed instanceof VoltageVariable)) return parsed;
  return fallback === undefined ? { variable: parsed } : { variable: parsed, fallback };
}

/** The value a voltage-variable period picks for the supply's present state, if any. */
export function periodFor(module: ModuleCore, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parsePeriodVariable(text);
  if ("problem" in parsed) return undefined;
  return parsed.variable?.valueFor(supplyState(module)) ?? parsed.fallback;
}
