import type { Attn } from "./attn/Attn.js";
import type { BinaryBuffer } from "./BinaryBuffer.js";
import type { Clock } from "../core/Clock.js";
import type { ModuleLog } from "./ModuleLog.js";
import type { PowerSource } from "./PowerSource.js";
import type { VoltageMonitor } from "./power/VoltageMonitor.js";
import type { Random } from "../core/Random.js";
import type { Notebox } from "./storage/Notebox.js";
import type { Variant } from "./Variant.js";
import type { Crypto } from "../core/Crypto.js";
import type { LargeObjectStore } from "./storage/LargeObjectStore.js";
import type { HubLink } from "./radio/HubLink.js";
import type { RadioConditions } from "./radio/RadioConditions.js";
import type { WifiStation } from "./radio/WifiStation.js";
import type { EnergyMeter } from "./power/EnergyMeter.js";
import type { Surroundings } from "./world/Surroundings.js";

/**
 * The module as its parts see it (sensors, the sync engine, settings, power policies): its ports,
 * state and services, without the parts built on them. Request handlers see `ModuleContext`.
 */
export interface ModuleCore {
  readonly clock: Clock;
  readonly random: Random;
  readonly notebox: Notebox;
  readonly variant: Variant;
  readonly power: PowerSource;
  readonly radio: RadioConditions;
  /** The WiFi station: `card.wifi` settings, the SoftAP, the access point it is on. */
  readonly wifi: WifiStation;
  readonly hubLink: HubLink;
  readonly crypto: Crypto;
  /** Firmware images on the module's flash (undefined when it has no room for them). */
  readonly images: LargeObjectStore | undefined;
  readonly log: ModuleLog;
  /** The supply's history since boot, read through `power` (firmware/power/VoltagePolicy.ts). */
  readonly voltage: VoltageMonitor;
  /** The energy model: what sessions, radio time and idle hours cost (`card.power` reads it). */
  readonly energy: EnergyMeter;
  /** The module's DeviceUID (`dev:` and 15 digits), fixed at first boot. */
  readonly deviceUid: string;
  /** Clock time (ms) of the last boot. */
  readonly bootedAt: number;
  /** Epoch seconds, or undefined while the module does not know the time (until a hub sets it). */
  time(): number | undefined;
  /** Sets the module's time (epoch seconds), as a hub session or a host sideload does. */
  setTime(seconds: number): void;
  /** Epoch seconds for stamping notes: the time if known, else 0. */
  noteTime(): number;
  /**
   * Waits for `io` (a network round trip) without holding the module: what the request changed
   * so far is committed first, other writers run during the wait, and the request continues in
   * a new transaction after it.
   */
  awaitIo<T>(io: () => Promise<T>): Promise<T>;
  /** Reboots the module after the current reply has been sent (`card.restart`, `card.restore`). */
  restartAfterReply(): void;
  /**
   * The next line from the host is raw binary for `receiver` (after `card.binary.put`); the
   * receiver gets undefined when that line was too long for the link to hold.
   */
  expectBinary(receiver: (bytes: Uint8Array | undefined) => void): void;
  /**
   * Raw bytes to send to the host right after this request's reply, on the same link (the COBS
   * data of `card.binary.get`). Dropped when the request fails or was sent as `cmd`.
   */
  sendAfterReply(bytes: Uint8Array): void;
  /** The binary buffer (RAM; emptied by a restart). */
  readonly binary: BinaryBuffer;
  /** The ATTN pin logic (`card.attn`); features report their events to it. */
  readonly attn: Attn;
  /** The world around the module as its sensors see it: position, motion, temperature, pins. */
  readonly world: Surroundings;
  /**
   * Runs a change the module makes by itself (a timer's note, a pin edge) when no request or other
   * task is running, inside one Notebox transaction. Never call it from a request handler.
   */
  exclusive<T>(task: () => T | Promise<T>): Promise<T>;
}
