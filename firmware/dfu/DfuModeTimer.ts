import { HUB_CONFIG_KEY, hubSettings } from "../config/HubConfig.js";
import { storeRecord } from "../config/compactRecord.js";
import type { ModuleCore } from "../ModuleCore.js";
import { SensorTimer } from "../sensors/SensorTimer.js";
import type { SyncEngine } from "../sync/SyncEngine.js";

/** Without a `dfu.get` (or a `hub.set mode:dfu`) for this long, the module leaves DFU mode. */
export const DFU_MODE_IDLE_MS = 15 * 60_000;

/** What DFU mode reads of the module: its core, and whether its sync engine is in a session. */
export interface DfuModeHost extends ModuleCore {
  readonly sync: Pick<SyncEngine, "status" | "isOnline">;
}

/**
 * DFU mode (`hub.set mode:dfu`): whether the host may read its image now, and the quiet spell
 * after which the module leaves the mode by itself (back to the mode it was in before).
 */
export class DfuModeTimer {
  readonly #module: DfuModeHost;
  readonly #timer: SensorTimer;
  #disposed = false;

  constructor(module: DfuModeHost) {
    this.#module = module;
    this.#timer = new SensorTimer(module.clock);
  }

  dispose(): void {
    this.#disposed = true;
    this.#timer.clear();
  }

  /** Whether `dfu.get` may read: `off` (not in DFU mode), `starting` (a session is still ending), `active`. */
  mode(): "off" | "starting" | "active" {
    if (hubSettings(this.#module).mode !== "dfu") return "off";
    const sync = this.#module.sync;
    return sync.status().running || sync.isOnline ? "starting" : "active";
  }

  /** After every request: DFU mode ends by itself after a quiet spell. */
  notice(): void {
    if (this.#disposed) return;
    if (hubSettings(this.#module).mode === "dfu") {
      if (!this.#timer.pending) this.touch();
    } else this.#timer.clear();
  }

  /** The host is working in DFU mode: the quiet spell starts again. */
  touch(): void {
    this.#timer.set(DFU_MODE_IDLE_MS, () => {
      // Work nobody waits on: a failure is logged (unless the module went meanwhile).
      if (this.#disposed) return;
      this.#module
        .exclusive(() => this.#leave())
        .catch((error: unknown) => {
          if (!this.#disposed) this.#module.log.error("leaving DFU mode failed", { error: String(error) });
        });
    });
  }

  #leave(): void {
    const s = hubSettings(this.#module);
    if (s.mode !== "dfu") return;
    storeRecord(this.#module.notebox, HUB_CONFIG_KEY, {
      ...s,
      mode: s.previousMode === "periodic" ? undefined : s.previousMode,
      previousMode: undefined,
    });
    this.#module.log.info("left DFU mode: no DFU activity for 15 minutes");
  }
}
