import type { JsonObject } from "../../../../core/json.js";
import { SeededRandom } from "../../../../core/SeededRandom.js";
import { bootstrapHub, NO_SIGN_IN, bootstrapState, type BootstrapState } from "../../../../hub/bootstrap.js";
import { HubIds } from "../../../../hub/HubIds.js";
import { createHubServices, type HubServices } from "../../../../hub/HubServices.js";
import type { RoutingOptions } from "../../../../hub/routing/RoutingService.js";
import type { DeviceInput, DeviceRecord, EventRecord } from "../../../../hub/store/records.js";
import type { RouteLogRecord, RouteRecord } from "../../../../hub/store/RouteStore.js";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { openHubStore } from "../../../../runtime/openHubStore.js";
import { FakeClock } from "../../../../runtime/FakeClock.js";

/**
 * Advances a fake clock by `ms` one timer at a time, letting routing finish what each timer
 * started (real HTTP exchanges) before time moves on: run past an attempt in one go, the clock
 * would reach the attempt's timeout before its real answer arrived.
 */
export async function stepClock(
  clock: FakeClock,
  routing: HubServices["routing"],
  ms: number,
): Promise<void> {
  let reached = false;
  clock.setTimer(() => {
    reached = true;
  }, ms);
  await routing.settle();
  while (!reached) {
    await clock.next();
    await routing.settle();
  }
}

/**
 * The hub's services in process on a fake clock, for routing: a bootstrapped project, devices,
 * events recorded as the API and the device sync record them, and the route logs. `path` keeps
 * the database in a file or a PostgreSQL database (a restart opens it again); routing faults are collected in `faults`.
 */
export class RoutingHub {
  #devices = 0;

  private constructor(
    /** Faults reported by routing and event subscribers (tests expect none). */
    readonly faults: unknown[],
    readonly services: HubServices,
    readonly store: HubStore,
    readonly clock: FakeClock,
    readonly state: BootstrapState,
  ) {}

  static async start(
    options: {
      /** A SQLite file, or a postgres:// URL: the store a restart opens again (default: in memory). */
      path?: string;
      clock?: FakeClock;
      seed?: number;
      routing?: RoutingOptions;
    } = {},
  ): Promise<RoutingHub> {
    const path = options.path ?? ":memory:";
    const store = await openHubStore(path.startsWith("postgres") ? path : { kind: "sqlite", path });
    const clock = options.clock ?? new FakeClock();
    const ids = new HubIds(new SeededRandom(options.seed ?? 11));
    const faults: unknown[] = [];
    const services = createHubServices({
      store,
      clock,
      ids,
      rateLimits: false,
      onRoutingError: (error) => faults.push(error),
      onListenerError: (error) => faults.push(error),
      ...(options.routing ? { routing: options.routing } : {}),
    });
    // A database opened again keeps its project.
    const state = (await bootstrapState(store)) ?? (await bootstrapHub(store, ids, clock, NO_SIGN_IN)).state;
    return new RoutingHub(faults, services, store, clock, state);
  }

  get projectUid(): string {
    return this.state.project_uid;
  }

  get routing(): HubServices["routing"] {
    return this.services.routing;
  }

  /** A device of the project (dev:2000000000001, ...). */
  async device(fields: Partial<DeviceInput> = {}): Promise<DeviceRecord> {
    this.#devices++;
    return this.store.devices.putDevice({
      uid: `dev:${2_000_000_000_000 + this.#devices}`,
      projectUid: this.projectUid,
      productUid: this.state.product_uid,
      provisioned: this.clock.now(),
      ...fields,
    });
  }

  route(body: JsonObject): Promise<RouteRecord> {
    return this.routing.create(this.projectUid, body);
  }

  /** An event of the device in `file`, recorded through the event service (as the sync does). */
  event(device: DeviceRecord, file: string, body: JsonObject | null, payload?: string): Promise<EventRecord> {
    const data: JsonObject = {
      req: "note.add",
      app: this.projectUid,
      product: device.productUid,
      best_id: device.uid,
    };
    if (body) data.body = body;
    if (payload !== undefined) data.payload = payload;
    return this.services.events.record({ projectUid: this.projectUid, deviceUid: device.uid, file, data });
  }

  /** Every log of a route (or of all routes), oldest first. */
  logs(routeUid?: string): Promise<RouteLogRecord[]> {
    return this.store.routes.listLogs(
      this.projectUid,
      { ...(routeUid ? { routeUid } : {}), sortBy: "date", sortOrder: "asc" },
      { offset: 0, limit: 10_000 },
    );
  }

  settle(): Promise<void> {
    return this.routing.settle();
  }

  /** Advances the clock by `ms`, letting routing finish what each due time starts (stepClock). */
  advance(ms: number): Promise<void> {
    return stepClock(this.clock, this.routing, ms);
  }

  async close(): Promise<void> {
    this.services.smartFleets.stop();
    await this.routing.stop();
    await this.store.close();
  }
}
