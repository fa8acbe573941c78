import type { Clock } from "../core/Clock.js";
import type { Crypto } from "../core/Crypto.js";
import type { Random } from "../core/Random.js";
import type { AttnPin } from "./attn/AttnPin.js";
import type { DfuOptions } from "./dfu/DfuAgent.js";
import type { ModuleLog } from "./ModuleLog.js";
import type { EnergyRates } from "./power/EnergyMeter.js";
import type { PowerSource } from "./PowerSource.js";
import type { HubLink } from "./radio/HubLink.js";
import type { RadioConditions } from "./radio/RadioConditions.js";
import type { FlashFs } from "./storage/flash/FlashFs.js";
import type { KvStore } from "./storage/KvStore.js";
import type { Variant, VariantName } from "./Variant.js";
import type { Surroundings } from "./world/Surroundings.js";

/** What a module is composed of (`Module.boot`): its ports, and how it behaves toward its host. */
export interface ModuleOptions {
  readonly clock: Clock;
  readonly random: Random;
  /** Where the module's flash lives. */
  readonly store: KvStore;
  /** A variant name, a SKU, either with `+xp` for the extended-power module, or a Variant. */
  readonly variant?: VariantName | string | Variant;
  readonly power?: PowerSource;
  readonly log?: ModuleLog;
  /** Longest JSON request line accepted, in bytes (default 8192). */
  readonly maxRequestBytes?: number;
  /**
   * Start with the time known, as if the module had already synced once (CI convenience). By
   * default the time is unknown until a hub session or a host sideload sets it.
   */
  readonly timeKnown?: boolean;
  /**
   * Answer fields that no request reads with a `{syntax}` error instead of ignoring them (the
   * real module ignores them; this catches misspelt arguments during development).
   */
  readonly strictArgs?: boolean;
  /** Log every request line and reply (info level). */
  readonly trace?: boolean;
  /** Capacity of the binary buffer in unencoded bytes (`card.binary` `max`, default 130554). */
  readonly binaryMax?: number;
  /** The ATTN output toward the host (a GPIO line on a rig); unconnected by default. */
  readonly attnPin?: AttnPin;
  /** Coverage and signal (good LTE coverage by default). */
  readonly radio?: RadioConditions;
  /** The connection to the hub (none by default: the module cannot sync). */
  readonly hubLink?: HubLink;
  /** Key pairs and signatures for the module's identity (seeded from `random` by default). */
  readonly crypto?: Crypto;
  /** The ProductUID the module syncs with until its host sets one (`hub.set product`). */
  readonly defaultProduct?: string;
  /**
   * Where the module keeps firmware images it downloads (beside its journal on the same flash);
   * absent: a module without room for images (DFU answers so).
   */
  readonly images?: FlashFs;
  /**
   * The world around the module (position, GPS sky, motion, temperature, light, AUX lines): a
   * `World` a scenario drives. By default a world of its own where nothing has placed the module.
   */
  readonly world?: Surroundings;
  /**
   * Firmware updates: how much a session downloads, the host's RESET and BOOT lines for outboard
   * updates (a rig's GPIO lines), the outboard serial rate.
   */
  readonly dfu?: DfuOptions;
  /** The energy model's rates, over the variant's defaults (firmware/power/EnergyMeter.ts). */
  readonly energy?: Partial<EnergyRates>;
  /**
   * The DeviceUID to take at first boot (`dev:` and 15 digits) instead of a random one: fleets
   * give each module one from its place in the fleet, so that shards never collide. A flash that
   * has an identity keeps it.
   */
  readonly deviceUid?: string;
}

export const DEFAULT_MAX_REQUEST_BYTES = 8192;
