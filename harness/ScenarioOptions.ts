import type { BoardDefinition } from "../boards/BoardDefinition.js";
import type { Clock } from "../core/Clock.js";
import type { BoardRigOptions } from "../boards/buildBoard.js";
import type { DfuOptions } from "../firmware/dfu/DfuAgent.js";
import type { EnergyRates } from "../firmware/power/EnergyMeter.js";
import type { ModuleLog } from "../firmware/ModuleLog.js";
import type { HubConnection } from "../runtime/SimulatedModule.js";
import type { FlashKvStoreOptions } from "../firmware/storage/flash/FlashKvStore.js";
import type { KvStore } from "../firmware/storage/KvStore.js";
import type { VariantName } from "../firmware/Variant.js";
import type { ScenarioI2cOptions } from "./ScenarioI2c.js";
import type { ScenarioSerialOptions } from "./ScenarioSerial.js";

/** How `Scenario.start` builds a scenario. */
export interface ScenarioOptions {
  /** Seeds the module's identity and randomness and every impairment (default 1). */
  readonly seed?: number | string;
  readonly variant?: VariantName;
  /** Start with the time known, as after a first sync (default false, as a fresh module). */
  readonly timeKnown?: boolean;
  /** Epoch ms the virtual clock starts at (default 2026-01-01T00:00:00Z). */
  readonly clockStart?: number;
  /** The module's flash (default: memory of `flashCapacity` bytes). */
  readonly store?: KvStore;
  readonly flashCapacity?: number;
  /**
   * The real flash store on a flash that can lose power (`PowerLossFlashFs`): power losses in the
   * middle of a write (`world.powerLossAt`) and the recovery at the next boot are then real.
   */
  readonly flash?: boolean | Omit<FlashKvStoreOptions, "onClose">;
  readonly serial?: ScenarioSerialOptions;
  /** Record every link: `true` in memory (written to a temp file on failure), or a file path. */
  readonly capture?: boolean | string;
  /** Default deadline of expectations, in ms of scenario time (default 10 000). */
  readonly timeoutMs?: number;
  /** The module's log (default: kept in memory, `scenario.log`). */
  readonly log?: ModuleLog;
  /**
   * An I2C link to the module as well (serial is always there): the module's I2C target on the
   * software bus with a hardware profile, and impairments for in-process hosts.
   */
  readonly i2c?: ScenarioI2cOptions;
  /**
   * Run on a board's pins: `virtual` (simulated GPIO and I2C bus, virtual time) or a Pi (`pi3`,
   * `pi4`, `pi5`, `zero2w`: its UART, I2C backend, ATTN and host RESET lines, real time, and the
   * host is the MCU wired to them). `boardOptions` are passed to buildBoard.
   */
  readonly board?: string | BoardDefinition;
  readonly boardOptions?: Omit<BoardRigOptions, "clock">;
  /**
   * The hub the module syncs with (none by default): in process, over HTTPS, or a link of the
   * test's; given as a function, it is called with the scenario's clock (a hub on the same time).
   * `"in-process"`: a hub of the scenario's own on its clock, persisting nothing
   * (runtime/InProcessHub, `scenario.hub`).
   */
  readonly hub?: HubConnection | ((clock: Clock) => HubConnection) | "in-process";
  /**
   * Firmware updates: how much a session downloads, the outboard rate. On a board the module
   * drives the host's RESET and BOOT lines the board names (unless `hostLines` is given here).
   */
  readonly dfu?: DfuOptions;
  /** The energy model's rates over the variant's defaults (`scenario.energy()` reads the totals). */
  readonly energy?: Partial<EnergyRates>;
  /** A Mojo power monitor on the module's supply (`card.power`); `sc.world.mojo()` changes it later. */
  readonly mojo?: boolean;
}
