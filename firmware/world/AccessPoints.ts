/**
 * WiFi access points in the world around a module: what its WiFi radio can hear and join.
 * `security` is how `card.wifi` names it (the schema's samples: `open`, `wpa2-psk`, `wpa3`);
 * `password` is the key a station must give (none for `open`); `rssi` is the signal at the
 * module in dBm; `mfp` is Management Frame Protection (`card.wifi` `secure`, on by default with
 * WPA3).
 */
export interface AccessPoint {
  readonly ssid: string;
  readonly security: AccessPointSecurity;
  readonly password?: string;
  readonly rssi: number;
  readonly mfp?: boolean;
  /** The access point's MAC address (`aa:bb:cc:dd:ee:ff`), reported to the hub when given. */
  readonly bssid?: string;
}

/** Security protocols an access point may use. */
export const AP_SECURITY = ["open", "wep", "wpa-psk", "wpa2-psk", "wpa3"] as const;
export type AccessPointSecurity = (typeof AP_SECURITY)[number];

/** The access points a module hears, read through the world (`Surroundings.accessPoints`). */
export interface AccessPointView {
  /**
   * The access points in range, strongest first; undefined while the world does not model them
   * (nothing set them yet: the module is on a network it knows, as on a desk).
   */
  list(): readonly AccessPoint[] | undefined;
  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** Longest SSID (IEEE 802.11: 32 octets). */
const MAX_SSID_BYTES = 32;

/** Checks an access point given from outside (a scenario, the control API); the error says what to fix. */
export function checkAccessPoint(value: unknown): AccessPoint {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(
      'an access point is an object: {"ssid": ..., "security": ..., "password": ..., "rssi": ...}',
    );
  const ap = value as Record<string, unknown>;
  const ssid = ap["ssid"];
  if (typeof ssid !== "string" || ssid === "" || new TextEncoder().encode(ssid).length > MAX_SSID_BYTES)
    throw new TypeError(
      `an access point's ssid is 1 to ${MAX_SSID_BYTES} bytes of text, got ${JSON.stringify(ssid)}`,
    );
  const security = ap["security"] ?? (ap["password"] === undefined ? "open" : "wpa2-psk");
  if (typeof security !== "string" || !(AP_SECURITY as readonly string[]).includes(security))
    throw new TypeError(
      `access point ${ssid}: security is one of ${AP_SECURITY.join(", ")}, got ${String(security)}`,
    );
  const password = ap["password"];
  if (security === "open" && password !== undefined)
    throw new TypeError(`access point ${ssid}: an open access point takes no password`);
  if (security !== "open" && (typeof password !== "string" || password.length < 8 || password.length > 63))
    throw new TypeError(`access point ${ssid}: ${security} needs a password of 8 to 63 characters`);
  const rssi = ap["rssi"] ?? -55;
  if (typeof rssi !== "number" || !Number.isFinite(rssi) || rssi > 0 || rssi < -120)
    throw new TypeError(`access point ${ssid}: rssi is dBm from -120 to 0, got ${String(rssi)}`);
  const mfp = ap["mfp"] ?? security === "wpa3";
  if (typeof mfp !== "boolean") throw new TypeError(`access point ${ssid}: mfp is true or false`);
  const bssid = ap["bssid"];
  if (bssid !== undefined && (typeof bssid !== "string" || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(bssid)))
    throw new TypeError(`access point ${ssid}: bssid is a MAC address like 00:11:22:33:44:55`);
  return {
    ssid,
    security: security as AccessPointSecurity,
    ...(password !== undefined ? { password: password as string } : {}),
    rssi,
    ...(mfp ? { mfp } : {}),
    ...(bssid !== undefined ? { bssid: (bssid as string).toLowerCase() } : {}),
  };
}

/**
 * The access points of a simulated world, changed by a scenario, `cardsim world wifi ...` or the
 * control API: added (an SSID added again replaces the one before), removed by SSID, or set
 * as a whole list. Until then the world does not model them (`list()` is undefined), and a WiFi
 * module is on a network it already knows; `set(undefined)` goes back to that.
 */
export class AccessPointList implements AccessPointView {
  #points: AccessPoint[] | undefined;
  readonly #listeners = new Set<() => void>();

  list(): readonly AccessPoint[] | undefined {
    return this.#points;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Puts an access point in range (replacing one of the same SSID). */
  add(value: unknown): void {
    const ap = checkAccessPoint(value);
    this.#replace([...(this.#points ?? []).filter((p) => p.ssid !== ap.ssid), ap]);
  }

  /** Takes the access point of that SSID out of range; an unknown SSID is an error. */
  remove(ssid: string): void {
    const points = this.#points ?? [];
    if (!points.some((p) => p.ssid === ssid))
      throw new RangeError(
        `no access point ${JSON.stringify(ssid)} here: ${points.map((p) => p.ssid).join(", ") || "none"}`,
      );
    this.#replace(points.filter((p) => p.ssid !== ssid));
  }

  /** The whole list at once (empty: none in range; undefined: not modelled, as at first). */
  set(values: readonly unknown[] | undefined): void {
    if (values !== undefined && !Array.isArray(values)) throw new TypeError("access points are a list");
    const points = values?.map(checkAccessPoint);
    if (points && new Set(points.map((p) => p.ssid)).size !== points.length)
      throw new RangeError("two access points have the same ssid");
    this.#replace(points);
  }

  #replace(points: AccessPoint[] | undefined): void {
    this.#points = points?.sort((a, b) => b.rssi - a.rssi);
    for (const listener of [...this.#listeners]) listener();
  }
}
