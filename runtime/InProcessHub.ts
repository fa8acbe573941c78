import type { Clock } from "../core/Clock.js";
import { SeededRandom } from "../core/SeededRandom.js";
import { bootstrapHub } from "../hub/bootstrap.js";
import { HubIds } from "../hub/HubIds.js";
import { createHubServices, type HubServices } from "../hub/HubServices.js";
import type { HubStore } from "../hub/store/HubStore.js";
import { openHubStore, type StoreLocation } from "./openHubStore.js";
import { SeededNodeCrypto } from "./SeededNodeCrypto.js";
import type { HubConnection } from "./SimulatedModule.js";

export interface InProcessHubOptions {
  readonly clock: Clock;
  /** Seeds the hub's identifiers (default 11). */
  readonly seed?: number | string;
  /** Told of a fault while handling a sync message (default: none). */
  readonly onSyncFault?: (error: unknown, type: string) => void;
  /** Where the hub keeps its records (openHubStore); default a private in-memory SQLite database. */
  readonly store?: string | StoreLocation;
}

/**
 * A hub that persists nothing, for worlds on a fake clock (harness scenarios, fleets, benchmarks):
 * the hub's services in this process, no sockets, on a private in-memory SQLite database
 * bootstrapped like a first start (one project and its default product). A commit costs no fsync,
 * so a sync session costs what its code costs. A hub that must survive a restart is `startHub`
 * with a directory.
 */
export class InProcessHub {
  private constructor(
    readonly services: HubServices,
    readonly store: HubStore,
    readonly projectUid: string,
    readonly productUid: string,
  ) {}

  static async start(options: InProcessHubOptions): Promise<InProcessHub> {
    const store = await openHubStore(options.store ?? { kind: "sqlite", path: ":memory:" });
    const ids = new HubIds(new SeededRandom(options.seed ?? 11));
    const services = createHubServices({
      store,
      clock: options.clock,
      ids,
      rateLimits: false,
      crypto: new SeededNodeCrypto(),
      ...(options.onSyncFault ? { onSyncFault: options.onSyncFault } : {}),
    });
    const { state } = await bootstrapHub(store, ids, options.clock);
    return new InProcessHub(services, store, state.project_uid, state.product_uid);
  }

  /** How a module reaches this hub: its sync service called in process, the hub's product. */
  connection(): HubConnection {
    return { inProcess: this.services.sync, product: this.productUid };
  }

  async close(): Promise<void> {
    this.services.smartFleets.stop();
    this.services.watchdogs.stop();
    await this.services.routing.stop();
    await this.store.close();
  }
}
