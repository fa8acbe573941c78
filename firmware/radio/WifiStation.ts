import type { AccessPoint, AccessPointView } from "../world/AccessPoints.js";

/** Notebox config key of the `card.wifi` settings (kept across restarts, as the schema says). */
export const WIFI_KEY = "card.wifi";

/** One network the module may join: an SSID and its password (none: an open access point). */
export interface WifiNetwork {
  readonly ssid: string;
  readonly password?: string;
}

export interface WifiSettings {
  /** The networks to try, in order (`ssid`/`password`, or the `text` list). */
  readonly networks?: readonly WifiNetwork[];
  /** The SoftAP's name (default `Notecard`; a trailing `-` takes the MAC's last four digits). */
  readonly name?: string;
  /** The organisation shown on the SoftAP page in place of the vendor's logo. */
  readonly org?: string;
}

/** The SoftAP's name until `name` changes it (card.wifi.req `name`). */
export const DEFAULT_SOFTAP_NAME = "Notecard";

/**
 * Join failures. The wrong-key text is a real module's (`hub.sync.status` of a WiFi module that
 * could not join its access point: reference/notecard-behavior.md, forum thread 728; sl_status
 * 0x21 is the WiFi chip's SL_STATUS_INVALID_PARAMETER); the other two are ours.
 */
export const WIFI_JOIN_ERRORS = {
  wrongKey: "wifi: can't join: sl_status:33",
  noneConfigured: "wifi: no access point configured (card.wifi ssid and password)",
  softAp: "wifi: in SoftAP mode until an access point is configured",
} as const;

/** No configured SSID is in range (ours). */
export function noneInRange(networks: readonly WifiNetwork[]): string {
  return `wifi: can't find access point ${networks.map((n) => JSON.stringify(n.ssid)).join(", ")}`;
}

/**
 * The station's state: on an access point (`ap` undefined: a network it knows, while the world
 * models none), or not, and why.
 */
export type WifiJoin =
  { readonly joined: true; readonly ap?: AccessPoint } | { readonly joined: false; readonly error: string };

/**
 * The module's WiFi station: it joins the first configured network (in the order given) whose
 * access point is in range and takes its key; an open access point takes any password or none.
 * While the world models no access points (none set yet) it is on a network it knows.
 * In SoftAP mode (`card.wifi start:true`) the station is off until credentials arrive or the
 * module restarts. The settings are in flash; the SoftAP state is RAM.
 */
export class WifiStation {
  #softAp: string | undefined;
  readonly #listeners = new Set<() => void>();

  constructor(
    private readonly points: () => AccessPointView,
    private readonly config: () => WifiSettings | undefined,
  ) {}

  get settings(): WifiSettings {
    return this.config() ?? {};
  }

  /** The SoftAP's name while it is up. */
  get softAp(): string | undefined {
    return this.#softAp;
  }

  /** Starts the SoftAP under `name` (the station leaves its access point). */
  startSoftAp(name: string): void {
    this.#softAp = name;
    this.changed();
  }

  /** A restart ends the SoftAP (RAM). */
  boot(): void {
    this.#softAp = undefined;
  }

  /** After the settings change: new credentials end the SoftAP; the radio looks again. */
  changed(credentials = false): void {
    if (credentials) this.#softAp = undefined;
    for (const listener of [...this.#listeners]) listener();
  }

  /** The access point the station is on, or why it is on none. */
  join(): WifiJoin {
    if (this.#softAp !== undefined) return { joined: false, error: WIFI_JOIN_ERRORS.softAp };
    const inRange = this.points().list();
    if (inRange === undefined) return { joined: true };
    const networks = this.settings.networks ?? [];
    if (networks.length === 0) return { joined: false, error: WIFI_JOIN_ERRORS.noneConfigured };
    let wrongKey = false;
    for (const network of networks) {
      const ap = inRange.find((p) => p.ssid === network.ssid);
      if (!ap) continue;
      if (ap.security === "open" || ap.password === network.password) return { joined: true, ap };
      wrongKey = true;
    }
    return { joined: false, error: wrongKey ? WIFI_JOIN_ERRORS.wrongKey : noneInRange(networks) };
  }

  /** Calls `listener` when the access points, the settings or the SoftAP change. */
  onChange(listener: () => void): () => void {
    const fromWorld = this.points().onChange(listener);
    this.#listeners.add(listener);
    return () => {
      fromWorld();
      this.#listeners.delete(listener);
    };
  }
}
