import type { DfuAgent } from "./dfu/DfuAgent.js";
import type { ModuleCore } from "./ModuleCore.js";
import type { Sensors } from "./sensors/Sensors.js";
import type { SyncEngine } from "./sync/SyncEngine.js";
import type { SyncSchedule } from "./sync/SyncSchedule.js";
import type { WebAgent } from "./web/WebAgent.js";

/** What request handlers see of the module they run in: its core and the parts built on it. */
export interface ModuleContext extends ModuleCore {
  /** The module's end of the sync protocol: sessions with the hub, their status, signals. */
  readonly sync: SyncEngine;
  /** When the module syncs by itself: modes, cadences, continuous sessions, penalty boxes. */
  readonly schedule: SyncSchedule;
  /** The module's sensors over the world: GPS, tracking, accelerometer, temperature, AUX pins. */
  readonly sensors: Sensors;
  /** Firmware updates of the host and of the module (`dfu.*`, `card.dfu`). */
  readonly dfu: DfuAgent;
  /** Web requests through the hub's proxy routes (`web.*`). */
  readonly web: WebAgent;
}
