import { SeededRandom } from "../../../core/SeededRandom.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootstrapHub, NO_SIGN_IN, type BootstrapState } from "../../../hub/bootstrap.js";
import { HubIds } from "../../../hub/HubIds.js";
import { createHubServices, type HubServices } from "../../../hub/HubServices.js";
import type { EventRecord } from "../../../hub/store/records.js";
import type { HubStore } from "../../../hub/store/HubStore.js";
import { openTestStore, type Backend } from "../../support/backends.js";

/**
 * The hub's services in process, without fastify: a fresh database bootstrapped like a
 * first start (one project with its default product), a fake clock and seeded identifiers.
 * Subscriber faults are collected in `listenerErrors`.
 */
export class TestServices {
  private constructor(
    readonly listenerErrors: { error: unknown; event: EventRecord }[],
    readonly services: HubServices,
    readonly store: HubStore,
    readonly clock: FakeClock,
    readonly state: BootstrapState,
  ) {}

  /**
   * `clock`: the clock to run on (a module's, so both ends share one time); a new one by default.
   * `backend`: the database (default SQLite in memory).
   */
  static async start(
    options: { seed?: number; clock?: FakeClock; backend?: Backend } = {},
  ): Promise<TestServices> {
    const store = await openTestStore(options.backend);
    const clock = options.clock ?? new FakeClock();
    const ids = new HubIds(new SeededRandom(options.seed ?? 7));
    const listenerErrors: { error: unknown; event: EventRecord }[] = [];
    const services = createHubServices({
      store,
      clock,
      ids,
      rateLimits: false,
      onListenerError: (error, event) => listenerErrors.push({ error, event }),
    });
    const { state } = await bootstrapHub(store, ids, clock, NO_SIGN_IN);
    return new TestServices(listenerErrors, services, store, clock, state);
  }

  get projectUid(): string {
    return this.state.project_uid;
  }

  get productUid(): string {
    return this.state.product_uid;
  }

  /** Registers `deviceUid` with the project and its default product (as a first sync would). */
  async registerDevice(deviceUid: string): Promise<void> {
    await this.services.devices.register({
      deviceUid,
      projectUid: this.projectUid,
      productUid: this.productUid,
    });
  }

  /** Every event the services hand to subscribers, from now on. */
  collectEvents(): EventRecord[] {
    const seen: EventRecord[] = [];
    this.services.events.subscribe((event) => {
      seen.push(event);
    });
    return seen;
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
