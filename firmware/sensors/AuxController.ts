import type { ModuleCore } from "../ModuleCore.js";
import type { SensorPeers } from "./SensorPeers.js";
import { AUX_PINS, type AuxEdge, type AuxPin, type AuxPinSetup } from "../world/AuxPins.js";
import { readSettings, SENSOR_KEYS, type AuxSettings, type CarrierSettings } from "./SensorSettings.js";
import type { JsonObject } from "../../core/json.js";
import { inBackground } from "../inBackground.js";

export const AUX_MODES = [
  "dfu",
  "gpio",
  "led",
  "monitor",
  "motion",
  "neo",
  "neo-monitor",
  "off",
  "rgb",
  "rgb-monitor",
  "track",
  "track-monitor",
  "track-neo-monitor",
  "track-rgb-monitor",
] as const;
export type AuxMode = (typeof AUX_MODES)[number];

export const AUX_USAGES = [
  "",
  "off",
  "high",
  "low",
  "input",
  "input-pulldown",
  "input-pullup",
  "count",
  "count-pulldown",
  "count-pullup",
] as const;
export type AuxUsage = (typeof AUX_USAGES)[number];

/** `gpio` without a `usage`: AUX1 off, AUX2 LOW, AUX3 HIGH, AUX4 input (the vendor's description). */
export const DEFAULT_GPIO_USAGE: readonly AuxUsage[] = ["off", "low", "high", "input"];
export const DEFAULT_BUTTON_FILE = "_button.qo";

export const LED_COLORS = [
  "red",
  "green",
  "yellow",
  "blue",
  "cyan",
  "magenta",
  "orange",
  "white",
  "gray",
] as const;
export type LedColor = (typeof LED_COLORS)[number];

/** LEDs on AUX2-4 in `led` mode (ours: red, green, yellow); an RGB LED's red, green, blue in `rgb` mode. */
const LED_PINS: Readonly<Record<"red" | "green" | "yellow", AuxPin>> = { red: 2, green: 3, yellow: 4 };
const RGB: Readonly<Partial<Record<LedColor, readonly [boolean, boolean, boolean]>>> = {
  red: [true, false, false],
  green: [false, true, false],
  blue: [false, false, true],
  yellow: [true, true, false],
  cyan: [false, true, true],
  magenta: [true, false, true],
  white: [true, true, true],
};

/** Which LED colors each AUX mode can light with `card.led`. */
export function ledColorsFor(mode: string): readonly LedColor[] | undefined {
  if (mode === "led") return ["red", "green", "yellow"];
  if (mode === "rgb") return Object.keys(RGB) as LedColor[];
  if (mode === "neo") return LED_COLORS;
  return undefined;
}

export function isMonitorMode(mode: string): boolean {
  return mode.endsWith("monitor");
}

interface Counting {
  /** Module clock ms counting started. */
  readonly start: number;
  readonly counts: Map<AuxPin, number[]>;
}

/**
 * The AUX pins (`card.aux`, `card.led`, `card.monitor`, `card.carrier`) on the AuxPins port. In
 * `gpio` mode each pin is off, an output, an input (with an optional pull) or a counter of rising
 * edges (falling with `count-pullup`), in `seconds` buckets up to `max`, debounced by `ms`. With
 * `sync:true` an input change, or a count (at most one note a second), writes `_button.qo`
 * (`file`) with the pins' `state`, and asks for a sync unless `connected:true`. Input changes
 * fire the `auxgpio` ATTN event. LED modes drive AUX2-4 for `card.led`; `dfu` holds AUX1 HIGH
 * (no outboard update runs here). Counters and LEDs are RAM.
 */
export class AuxController {
  readonly #module: ModuleCore;
  #counting: Counting | undefined;
  readonly #lastChange = new Map<AuxPin, number>();
  #lastCountNote: number | undefined;
  #leds = new Set<LedColor>();
  #monitor: { mode: string; count: number; usb: boolean } | undefined;
  #unsubscribe: (() => void) | undefined;
  #applying = false;
  #disposed = false;

  readonly #peers: SensorPeers;

  constructor(module: ModuleCore, peers: SensorPeers) {
    this.#peers = peers;
    this.#module = module;
  }

  get settings(): AuxSettings {
    return readSettings<AuxSettings>(this.#module, SENSOR_KEYS.aux);
  }

  get mode(): AuxMode {
    return (this.settings.mode as AuxMode | undefined) ?? "off";
  }

  /** The usage of each pin in `gpio` mode. */
  usage(): readonly AuxUsage[] {
    const u = (this.settings.usage as readonly AuxUsage[] | undefined) ?? DEFAULT_GPIO_USAGE;
    return AUX_PINS.map((_, i) => u[i] ?? "off");
  }

  start(): void {
    this.#unsubscribe = this.#module.world.aux.onEdge((edge) => this.#edge(edge));
    this.apply();
  }

  dispose(): void {
    this.#disposed = true;
    this.#unsubscribe?.();
  }

  /** Sets the pins up for the mode and usage in flash (after `card.aux`, and at boot). */
  apply(): void {
    // Levels the module itself sets up are not input changes.
    this.#applying = true;
    try {
      this.#apply();
    } finally {
      this.#applying = false;
    }
  }

  #apply(): void {
    const pins = this.#module.world.aux;
    const mode = this.mode;
    const input: AuxPinSetup = { output: false, pull: "none" };
    if (mode === "gpio") {
      const usage = this.usage();
      for (const pin of AUX_PINS) pins.setup(pin, setupFor(usage[pin - 1]!));
      if (usage.some(isCount)) this.#counting ??= this.#newCounting();
      else this.#counting = undefined;
      return;
    }
    this.#counting = undefined;
    for (const pin of AUX_PINS) pins.setup(pin, input);
    if (mode === "dfu") pins.setup(1, { output: true, high: true });
    if (mode === "led" || mode === "rgb") this.#driveLeds();
    if (mode === "neo" || mode.includes("neo")) pins.setup(2, { output: true, high: false });
  }

  /** Resets the counters (`start:true`). */
  restartCounting(): void {
    if (this.usage().some(isCount) && this.mode === "gpio") this.#counting = this.#newCounting();
  }

  /** `card.aux` reply members for the present mode. */
  report(): JsonObject {
    const mode = this.mode;
    // Replies name the monitor's LEDs: `monitor` is `led-monitor` (the reply schema's names).
    const named = mode === "monitor" ? "led-monitor" : mode === "track-monitor" ? "track-led-monitor" : mode;
    const reply: JsonObject = { mode: named };
    if (mode === "gpio") {
      reply["state"] = this.state();
      const s = this.settings;
      if (this.#counting) {
        reply["time"] = this.#epoch(this.#counting.start);
        if (s.seconds) reply["seconds"] = s.seconds;
      }
    }
    if (mode.startsWith("track")) Object.assign(reply, this.#peers.environment());
    return reply;
  }

  /** Each pin's state in `gpio` mode: `{}` off, `{high}`/`{low}` for outputs and inputs, `{count}`. */
  state(): JsonObject[] {
    const pins = this.#module.world.aux;
    const usage = this.usage();
    return AUX_PINS.map((pin) => {
      const u = usage[pin - 1]!;
      if (u === "off" || u === "") return {};
      if (isCount(u)) return { count: this.#counts(pin) };
      return pins.read(pin) ? { high: true } : { low: true };
    });
  }

  /** `card.led`: turns a color on or off on the LED(s) of the present mode. */
  led(color: LedColor, on: boolean): void {
    const mode = this.mode;
    if (mode === "led") {
      if (on) this.#leds.add(color);
      else this.#leds.delete(color);
    } else {
      // One RGB LED or NeoPixel shows one color at a time.
      if (on) this.#leds = new Set([color]);
      else this.#leds.delete(color);
    }
    if (mode === "led" || mode === "rgb") this.#driveLeds();
  }

  /** The LED colors lit now (for scenarios and the control API). */
  leds(): readonly LedColor[] {
    return LED_COLORS.filter((c) => this.#leds.has(c));
  }

  /** `card.monitor`: a temporary override of one monitor LED (RAM). */
  setMonitor(mode: string | undefined, count: number, usb: boolean): void {
    this.#monitor = mode === undefined || count === 0 ? undefined : { mode, count, usb };
  }

  get monitor(): { mode: string; count: number; usb: boolean } | undefined {
    return this.#monitor;
  }

  /** `card.carrier charging` is set and the carrier signals charging. */
  chargingReported(): boolean {
    const carrier = readSettings<CarrierSettings>(this.#module, SENSOR_KEYS.carrier);
    return carrier.charging === true && this.#module.world.charging();
  }

  /** A `track` mode: `_track.qo` notes carry the environmental sensor's readings. */
  tracksEnvironment(): boolean {
    return this.mode.startsWith("track");
  }

  // --- internals -------------------------------------------------------------------------------

  #newCounting(): Counting {
    return { start: this.#module.clock.now(), counts: new Map() };
  }

  #counts(pin: AuxPin): number[] {
    const counting = this.#counting;
    if (!counting) return [0];
    const s = this.settings;
    const counts = counting.counts.get(pin) ?? [];
    const seconds = s.seconds ?? 0;
    const max = s.max ?? 0;
    if (seconds <= 0 || max <= 0) return [counts[0] ?? 0];
    const elapsed = this.#module.clock.now() - counting.start;
    const filled = Math.min(max, Math.floor(elapsed / (seconds * 1000)) + 1);
    return Array.from({ length: filled }, (_, i) => counts[i] ?? 0);
  }

  #edge(edge: AuxEdge): void {
    if (this.#disposed || this.#applying || this.mode !== "gpio") return;
    const module = this.#module;
    const usage = this.usage()[edge.pin - 1]!;
    const previousChange = this.#lastChange.get(edge.pin);
    this.#lastChange.set(edge.pin, edge.at);
    if (isCount(usage)) {
      const counted = usage === "count-pullup" ? !edge.high : edge.high;
      const ms = this.settings.ms ?? 0;
      if (!counted || (ms > 0 && previousChange !== undefined && edge.at - previousChange < ms)) return;
      this.#count(edge.pin, edge.at);
      module.attn.trigger("auxgpio");
      if (
        this.settings.sync &&
        (this.#lastCountNote === undefined || edge.at - this.#lastCountNote >= 1000)
      ) {
        this.#lastCountNote = edge.at;
        this.#note();
      }
      return;
    }
    if (!usage.startsWith("input")) return;
    module.attn.trigger("auxgpio");
    if (this.settings.sync) this.#note();
  }

  #count(pin: AuxPin, at: number): void {
    const counting = (this.#counting ??= this.#newCounting());
    const s = this.settings;
    const seconds = s.seconds ?? 0;
    const max = s.max ?? 0;
    const index =
      seconds > 0 && max > 0 ? Math.min(max - 1, Math.floor((at - counting.start) / (seconds * 1000))) : 0;
    const counts = counting.counts.get(pin) ?? [];
    counts[index] = (counts[index] ?? 0) + 1;
    counting.counts.set(pin, counts);
  }

  /** A state-change note in `file`, written in the module's exclusive queue. */
  #note(): void {
    const module = this.#module;
    const state = this.state();
    inBackground(
      module,
      "AUX state note",
      () => {
        const s = this.settings;
        const file = s.file ?? DEFAULT_BUTTON_FILE;
        const body: JsonObject = { state };
        if (module.voltage.now().usb) body["power"] = true;
        module.notebox.appendToQueue(file, { body, time: module.noteTime() });
        if (!s.connected) module.notebox.requestSync(file);
      },
      () => this.#disposed,
    );
  }

  #driveLeds(): void {
    const pins = this.#module.world.aux;
    if (this.mode === "led") {
      for (const [color, pin] of Object.entries(LED_PINS) as ["red" | "green" | "yellow", AuxPin][])
        pins.setup(pin, { output: true, high: this.#leds.has(color) });
    } else {
      const lit = LED_COLORS.find((c) => this.#leds.has(c));
      const rgb = (lit && RGB[lit]) ?? [false, false, false];
      pins.setup(2, { output: true, high: rgb[0] });
      pins.setup(3, { output: true, high: rgb[1] });
      pins.setup(4, { output: true, high: rgb[2] });
    }
  }

  #epoch(at: number): number | undefined {
    const now = this.#module.time();
    if (now === undefined) return undefined;
    return Math.max(0, now - Math.round((this.#module.clock.now() - at) / 1000));
  }
}

function isCount(usage: AuxUsage): boolean {
  return usage.startsWith("count");
}

function setupFor(usage: AuxUsage): AuxPinSetup {
  switch (usage) {
    case "high":
      return { output: true, high: true };
    case "low":
      return { output: true, high: false };
    case "input-pulldown":
    case "count-pulldown":
      return { output: false, pull: "down" };
    case "input-pullup":
    case "count-pullup":
      return { output: false, pull: "up" };
    default:
      return { output: false, pull: "none" };
  }
}
