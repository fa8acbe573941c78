import type { ModuleCore } from "../ModuleCore.js";
import type { CellTower } from "../world/Surroundings.js";
import { readSettings, SENSOR_KEYS, type TriangulateSettings } from "./SensorSettings.js";

/** A WiFi access point from a host's scan (`card.triangulate text`, ESP32 `AT+CWLAP` lines). */
export interface AccessPoint {
  readonly ssid: string;
  readonly bssid: string;
  readonly rssi: number;
  readonly channel: number;
}

/** What the next hub session carries for triangulation (the hub answers with `tri_*`). */
export interface TriangulationData {
  readonly mode: string;
  /** Cell towers in range when the session opens, serving first. */
  readonly towers: readonly CellTower[];
  /** The host's latest WiFi scan. */
  readonly wifi: readonly AccessPoint[];
  /** Epoch seconds of the WiFi scan (0 when the time was unknown). */
  readonly wifiTime: number;
}

const CWLAP = /^\+CWLAP:\((\d+),"((?:[^"\\]|\\.)*)",(-?\d+),"([0-9a-fA-F:]{17})",(\d+)/;

/**
 * `card.triangulate`: which scans the module adds to its hub sessions (`cell`, `wifi`), whether
 * only when it moved (`on`) and only on USB power (`usb`), and the host's latest WiFi scan. The
 * scan itself happens when a session opens; `sessionData()` is what the sync engine sends.
 */
export class Triangulation {
  readonly #module: ModuleCore;
  #text: string | undefined;
  #wifi: AccessPoint[] = [];
  #wifiTime = 0;
  #lastScan: number | undefined;
  /** Module clock ms of the last scan. */
  #lastScanAt: number | undefined;

  constructor(module: ModuleCore) {
    this.#module = module;
  }

  get settings(): TriangulateSettings {
    return readSettings<TriangulateSettings>(this.#module, SENSOR_KEYS.triangulate);
  }

  /** Length of the last WiFi scan text a host gave. */
  get length(): number {
    return this.#text?.length ?? 0;
  }

  get accessPoints(): readonly AccessPoint[] {
    return this.#wifi;
  }

  /** Epoch seconds of the last scan (a host's WiFi text, or a session's scan). */
  get lastScan(): number | undefined {
    return this.#lastScan;
  }

  /** Keeps a host's WiFi scan (RAM): the access points the text lists, lines it cannot read skipped. */
  setWifiScan(text: string, time: number): void {
    this.#text = text;
    this.#wifiTime = time;
    this.#lastScan = time || this.#lastScan;
    this.#lastScanAt = this.#module.clock.now();
    this.#wifi = parseAccessPoints(text);
  }

  /**
   * The data the next session should carry, or undefined when triangulation is off, or when it
   * waits for movement (`on` not set and the module has not moved since the last scan) or for
   * USB power. The sync engine calls `scanned()` once it has sent them.
   */
  sessionData(): TriangulationData | undefined {
    const module = this.#module;
    const s = this.settings;
    if (!s.mode) return undefined;
    if (s.usb && !module.voltage.now().usb) return undefined;
    const lastMotion = module.world.lastMotionAt();
    const scanAt = this.#lastScanAt;
    if (!s.on && scanAt !== undefined && (lastMotion === undefined || lastMotion <= scanAt)) return undefined;
    const modes = s.mode.split(",");
    return {
      mode: s.mode,
      towers: modes.includes("cell") ? module.world.towers() : [],
      wifi: modes.includes("wifi") ? this.#wifi : [],
      wifiTime: this.#wifiTime,
    };
  }

  /** Marks a session's scan done (epoch seconds, 0 when the time is unknown). */
  scanned(time: number): void {
    this.#lastScan = time || this.#lastScan;
    this.#lastScanAt = this.#module.clock.now();
  }
}

/** The access points of `AT+CWLAP` output; other lines are skipped. */
export function parseAccessPoints(text: string): AccessPoint[] {
  const out: AccessPoint[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = CWLAP.exec(line.trim());
    if (!m) continue;
    out.push({
      ssid: m[2]!.replace(/\\(.)/g, "$1"),
      rssi: Number(m[3]),
      bssid: m[4]!.toLowerCase(),
      channel: Number(m[5]),
    });
  }
  return out;
}
