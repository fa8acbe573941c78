import type { Clock } from "../../core/Clock.js";
import type { Variant } from "../Variant.js";
import { GOOD_COVERAGE, RAT_BEARERS, type RadioConditions, type RadioState } from "./RadioConditions.js";
import type { Surroundings } from "../world/Surroundings.js";
import { WIFI_KEY, WifiStation, type WifiSettings } from "./WifiStation.js";

/** The access technologies a `card.transport` method puts in order. */
export type Technology = "wifi" | "cell" | "ntn";

/** Seconds on a fallback technology before the first of the method is tried again (schema default). */
export const DEFAULT_FALLBACK_SECONDS = 3600;

/** Every method of the schema's enum (`-` resets), and the technologies each tries, in order. */
export const TRANSPORT_ORDER: Readonly<Record<string, readonly Technology[]>> = {
  cell: ["cell"],
  "cell-ntn": ["cell", "ntn"],
  "dual-wifi-cell": ["wifi", "cell"],
  ntn: ["ntn"],
  wifi: ["wifi"],
  "wifi-cell": ["wifi", "cell"],
  "wifi-cell-ntn": ["wifi", "cell", "ntn"],
  "wifi-ntn": ["wifi", "ntn"],
};

/**
 * The methods each SKU family takes (card.transport.req.notecard.api.json, `method`
 * sub-descriptions' `skus`): CELL `cell`, `cell-ntn`, `ntn`; WIFI `wifi`, `wifi-ntn`, `ntn`;
 * CELL+WIFI and the satellite module every method.
 */
export function transportMethodsOf(variant: Variant): readonly string[] {
  if (variant.lora) return [];
  if (variant.ntn || (variant.cell && variant.wifi)) return Object.keys(TRANSPORT_ORDER);
  if (variant.wifi) return ["ntn", "wifi", "wifi-ntn"];
  return ["cell", "cell-ntn", "ntn"];
}

/** What a module uses until told otherwise: WiFi first, then cellular, then satellite. */
export function defaultTransport(variant: Variant): string {
  if (variant.ntn) return "wifi-cell-ntn";
  if (variant.wifi && variant.cell) return "wifi-cell";
  if (variant.wifi) return "wifi";
  return "cell";
}

/** The radio conditions with per-technology coverage (`SimRadioConditions`). */
export interface CoverageConditions extends RadioConditions {
  /** Whether the surroundings give `technology` coverage now (absent: always). */
  covers?(technology: Technology): boolean;
}

/** Notebox config key of the `card.transport` settings. */
export const TRANSPORT_KEY = "card.transport";

export interface TransportSettings {
  readonly method?: string;
  /** Seconds on a fallback transport before the preferred one is tried again. */
  readonly seconds?: number;
  readonly allow?: boolean;
  readonly umin?: boolean;
}

/** The method and fallback seconds in force for a variant, from its settings record. */
export function transportInForce(
  variant: Variant,
  settings: TransportSettings | undefined,
): { method: string; seconds: number } {
  return {
    method: settings?.method ?? defaultTransport(variant),
    seconds: settings?.seconds ?? DEFAULT_FALLBACK_SECONDS,
  };
}

const CELLULAR_RATS = ["lte", "catm", "nbiot", "gsm"];

/**
 * The module's radio as its transport method makes it (`card.transport`): the first technology
 * of the method that the module has and the surroundings cover carries the sessions, and its
 * access technology (`rat`, `bearer`) is what sessions, `card.wireless` and the hub see. Once on
 * a fallback, the module stays there for the method's `seconds` (default 3600) before it tries
 * the first technology again, as the schema's `seconds` describes. No technology: not registered.
 * The NTN technology needs the satellite radio: built in, or a Starnote wired to the module.
 * WiFi is there only while the module's WiFi station is on an access point (`WifiStation`): its
 * signal is the access point's, and when no technology is left the station's failure is the reason.
 */
export class TransportRadio implements RadioConditions {
  #fallbackUntil = 0;
  #fallback: Technology | undefined;

  constructor(
    private readonly inner: CoverageConditions,
    private readonly variant: Variant,
    private readonly clock: Clock,
    private readonly setting: () => { method: string; seconds: number },
    /** The WiFi station (`card.wifi`): WiFi carries sessions while it is on an access point. */
    readonly wifi: WifiStation,
  ) {}

  /** The technology carrying sessions now (undefined: none covered). */
  technology(): Technology | undefined {
    const { method, seconds } = this.setting();
    // One pass over the order (every session asks, several times): the first technology the
    // module has, the first of them covered, and whether the fallback in force is covered.
    let first: Technology | undefined;
    let chosen: Technology | undefined;
    let fallbackCovered = false;
    for (const t of TRANSPORT_ORDER[method] ?? TRANSPORT_ORDER[defaultTransport(this.variant)]!) {
      if (!this.#has(t)) continue;
      first ??= t;
      if (!this.#covers(t)) continue;
      chosen ??= t;
      if (t === this.#fallback) fallbackCovered = true;
    }
    const now = this.clock.now();
    if (this.#fallback && now < this.#fallbackUntil && fallbackCovered) return this.#fallback;
    if (chosen !== undefined && chosen !== first) {
      if (this.#fallback !== chosen) this.#fallbackUntil = now + Math.max(0, seconds) * 1000;
      this.#fallback = chosen;
    } else this.#fallback = undefined;
    return chosen;
  }

  state(): RadioState {
    const base = this.inner.state();
    // LoRa has no transport to choose: its one radio is the conditions as they are.
    if (this.variant.lora) return base;
    const technology = this.technology();
    if (technology === undefined) return { ...base, registered: false, ...this.#reason() };
    if (technology === "cell") {
      if (CELLULAR_RATS.includes(base.rat)) return base;
      return { ...base, rat: "lte", bearer: RAT_BEARERS["lte"]! };
    }
    if (technology === "wifi") return this.#onAccessPoint(base);
    const rat = "ntn";
    if (base.rat === rat) return base;
    // WiFi and NTN radios report RSSI only: no LTE reference-signal measurements.
    return { ...base, rat, bearer: RAT_BEARERS[rat]!, rsrp: 0, rsrq: 0, sinr: 0 };
  }

  onChange(listener: () => void): () => void {
    const inner = this.inner.onChange(listener);
    const wifi = this.variant.wifi ? this.wifi.onChange(listener) : undefined;
    return () => {
      inner();
      wifi?.();
    };
  }

  connectFails(): boolean {
    return this.inner.connectFails?.() ?? false;
  }

  #covers(technology: Technology): boolean {
    if (!(this.inner.covers?.(technology) ?? true)) return false;
    return technology !== "wifi" || this.wifi.join().joined;
  }

  /** The WiFi radio on its access point (the access point's signal, RSSI only) or a network it knows. */
  #onAccessPoint(base: RadioState): RadioState {
    const join = this.wifi.join();
    const ap = join.joined ? join.ap : undefined;
    const wifi = { rat: "wifi", bearer: RAT_BEARERS["wifi"]!, rsrp: 0, rsrq: 0, sinr: 0 };
    if (!ap) return base.rat === "wifi" ? base : { ...base, ...wifi };
    return { ...base, ...wifi, rssi: ap.rssi, bars: base.registered ? wifiBars(ap.rssi) : 0 };
  }

  /** Why nothing carries sessions: the WiFi station's failure when WiFi was the only hope left. */
  #reason(): { reason?: string } {
    const { method } = this.setting();
    const order = TRANSPORT_ORDER[method] ?? TRANSPORT_ORDER[defaultTransport(this.variant)]!;
    if (!order.includes("wifi") || !this.variant.wifi) return {};
    if (!(this.inner.covers?.("wifi") ?? true)) return {};
    const join = this.wifi.join();
    return join.joined ? {} : { reason: join.error };
  }

  #has(technology: Technology): boolean {
    if (technology === "cell") return this.variant.cell;
    if (technology === "wifi") return this.variant.wifi;
    return this.variant.ntn || this.variant.starnote;
  }
}

/**
 * The radio a module sees through its `card.transport` setting and its WiFi station's
 * `card.wifi` settings, read from its config when asked, among the access points of its world.
 */
export function transportRadio(
  inner: CoverageConditions | undefined,
  variant: Variant,
  clock: Clock,
  config: <T>(key: string) => T | undefined,
  world: () => Surroundings,
): TransportRadio {
  const wifi = new WifiStation(
    () => world().accessPoints,
    () => config<WifiSettings>(WIFI_KEY),
  );
  const setting = () => transportInForce(variant, config<TransportSettings>(TRANSPORT_KEY));
  return new TransportRadio(inner ?? steadyRadio, variant, clock, setting, wifi);
}

/** Signal bars of a WiFi RSSI (ours: 4 from -55 dBm, then one less every 12 dB, 0 below -91). */
export function wifiBars(rssi: number): number {
  if (rssi >= -55) return 4;
  if (rssi >= -67) return 3;
  if (rssi >= -79) return 2;
  if (rssi >= -91) return 1;
  return 0;
}

/** Coverage that never changes, for a module given no radio. */
const steadyRadio: RadioConditions = { state: () => GOOD_COVERAGE, onChange: () => () => undefined };
