import { Environment } from "../env/Environment.js";
import type { ModuleCore } from "../ModuleCore.js";
import { VoltageVariable, type VoltageState } from "./VoltageVariable.js";

/** Configuration record key of the `card.voltage` settings (`VoltageSettings`). */
export const VOLTAGE_CONFIG_KEY = "card.voltage";

/** `card.voltage` presets and the thresholds they stand for (reference §4.5). */
export const VOLTAGE_PRESETS: Readonly<Record<string, string>> = {
  default: "normal:2.5;dead:0",
  lipo: "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0",
  l91: "high:5.0;normal:4.5;low:0",
  alkaline: "usb:4.6;high:4.2;normal:3.6;low:0",
  tad: "usb:4.6;normal:3.2;low:0",
  lic: "usb:4.6;high:3.8;normal:3.1;low:0",
};

/** Default `card.voltage calibration`: the diode drop of the usual carrier, in volts. */
export const DEFAULT_CALIBRATION = 0.35;
/** The simulated carrier's diode drop between the supply and the module's own rail. */
export const CARRIER_DIODE_DROP = 0.35;
/** `value` is an average over this window unless the host asks for `now`. */
export const VALUE_AVERAGE_MS = 15 * 60_000;

export interface VoltageSettings {
  /** Preset name, or a custom threshold string as given (validated); absent means `default`. */
  readonly mode?: string;
  /** Environment variable whose value, when valid, overrides the thresholds. */
  readonly name?: string;
  /** Trend analysis enabled, and since when (module clock ms). */
  readonly on?: boolean;
  readonly onAt?: number;
  /** Watch USB power changes; with `alert` log them to `_health.qo`, with `sync` sync on them. */
  readonly usb?: boolean;
  readonly alert?: boolean;
  readonly sync?: boolean;
  readonly calibration?: number;
}

export function voltageSettings(module: ModuleCore): VoltageSettings {
  return module.notebox.config<VoltageSettings>(VOLTAGE_CONFIG_KEY) ?? {};
}

/** The thresholds a preset name stands for, if `mode` is one (own keys only: not `toString`). */
export function presetThresholds(mode: string): string | undefined {
  return Object.hasOwn(VOLTAGE_PRESETS, mode) ? VOLTAGE_PRESETS[mode] : undefined;
}

/** Threshold text of a preset name or a custom string; undefined when it is neither. */
export function thresholdsOf(mode: string): VoltageVariable | undefined {
  const parsed = VoltageVariable.parse(presetThresholds(mode) ?? mode, "volts");
  return parsed instanceof VoltageVariable ? parsed : undefined;
}

/** The thresholds in force: the `name` variable when it holds valid ones, else `mode`. */
export function currentThresholds(module: ModuleCore): VoltageVariable {
  const settings = voltageSettings(module);
  if (settings.name) {
    const text = new Environment(module.notebox).get(settings.name)?.text;
    const fromEnv = text === undefined ? undefined : thresholdsOf(text);
    if (fromEnv) return fromEnv;
  }
  return thresholdsOf(settings.mode ?? "default") ?? thresholdsOf("default")!;
}

/** What the module adds to the port's voltage: its calibration minus the diode it measures behind. */
export function calibrationOffset(module: ModuleCore): number {
  return (voltageSettings(module).calibration ?? DEFAULT_CALIBRATION) - CARRIER_DIODE_DROP;
}

/** The supply voltage the module reports: the 15-minute average, or the present reading. */
export function measuredVoltage(module: ModuleCore, now = false): number {
  const offset = calibrationOffset(module);
  return (now ? module.voltage.now().volts : module.voltage.recentAverage(VALUE_AVERAGE_MS)) + offset;
}

/** The state (`usb`, `high`, `normal`, `low`, `dead`) the supply is in under the thresholds. */
export function supplyState(module: ModuleCore): VoltageState {
  return currentThresholds(module).stateFor(measuredVoltage(module), module.voltage.now().usb);
}
