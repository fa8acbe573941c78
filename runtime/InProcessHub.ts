import type { FastifyInstance } from "fastify";
import type { Clock } from "../core/Clock.js";
import { SeededRandom } from "../core/SeededRandom.js";
import { bootstrapHub, NO_SIGN_IN } from "../hub/bootstrap.js";
import { buildHubApp } from "../hub/HubApp.js";
import { HubIds } from "../hub/HubIds.js";
import { createHubServices, type HubServices } from "../hub/HubServices.js";
import type { ListeningAddress } from "../hub/routing/RouteTargets.js";
import type { HubStore } from "../hub/store/HubStore.js";
import { HubApi, injectedInto, type HubListener } from "./HubApi.js";
import { openHubStore, type StoreLocation } from "./openHubStore.js";
import { SeededNodeCrypto } from "./SeededNodeCrypto.js";
import { serveHubApp } from "./serveHubApp.js";
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

/** What an in-process hub shares with its API and its listeners. */
interface Parts {
  readonly services: HubServices;
  readonly store: HubStore;
  readonly token: string;
  readonly projectUid: string;
  readonly productUid: string;
  readonly listening: ListeningAddress[];
  readonly listeners: HubListener[];
  /** Requests on listeners, and sync messages being handled, now. */
  readonly busy: { requests: number; sync: number };
  /** The base URL links in the API's answers use: a listener's, once there is one. */
  readonly publicUrl: { value: string };
  app?: Promise<FastifyInstance>;
}

/**
 * A hub that persists nothing, for worlds on a fake clock (harness scenarios, fleets, benchmarks):
 * the hub's services in this process, no sockets, on a private in-memory SQLite database
 * bootstrapped like a first start (one project and its default product). A commit costs no fsync,
 * so a sync session costs what its code costs. A hub that must survive a restart is `startHub`
 * with a directory.
 *
 * Its REST API (`request`, the helpers, `listen`: see HubApi) is the hub's own fastify app, made
 * on first use, called as the project's owner.
 */
export class InProcessHub extends HubApi {
  readonly #parts: Parts;

  private constructor(parts: Parts) {
    const app = () =>
      (parts.app ??= buildHubApp({ services: parts.services, logger: false }).then((b) => b.app));
    super({
      send: injectedInto(app),
      token: parts.token,
      projectUid: parts.projectUid,
      productUid: parts.productUid,
      listen: async () => {
        const listener = await serveHubApp(await app(), parts, parts.listening, parts.busy);
        parts.listeners.push(listener);
        parts.publicUrl.value = listener.url;
        return listener;
      },
      settle: () => parts.services.routing.settle(),
    });
    this.#parts = parts;
  }

  static async start(options: InProcessHubOptions): Promise<InProcessHub> {
    const store = await openHubStore(options.store ?? { kind: "sqlite", path: ":memory:" });
    const ids = new HubIds(new SeededRandom(options.seed ?? 11));
    const listening: ListeningAddress[] = [];
    const publicUrl = { value: "http://localhost" };
    const services = createHubServices({
      store,
      clock: options.clock,
      ids,
      rateLimits: false,
      crypto: new SeededNodeCrypto(),
      publicUrl: () => publicUrl.value,
      routing: { targets: { policy: "any", listening: () => listening } },
      ...(options.onSyncFault ? { onSyncFault: options.onSyncFault } : {}),
    });
    // Reached with its token only: no admin password, and no scrypt hash paid for one.
    const { state, token } = await bootstrapHub(store, ids, options.clock, NO_SIGN_IN);
    const listeners: HubListener[] = [];
    return new InProcessHub({
      services,
      store,
      token,
      projectUid: state.project_uid,
      productUid: state.product_uid,
      listening,
      listeners,
      busy: { requests: 0, sync: 0 },
      publicUrl,
    });
  }

  /** The hub as the API sees it: its store and services (the REST API is the public way in). */
  get services(): HubServices {
    return this.#parts.services;
  }

  get store(): HubStore {
    return this.#parts.store;
  }

  /**
   * True while something outside the clock is under way: a request on a listener, a route
   * delivery or a proxied web request (real I/O). A scenario on virtual time waits for it to end
   * before it moves the clock on (`settle`).
   */
  get busy(): boolean {
    const busy = this.#parts.busy;
    return busy.requests > 0 || busy.sync > 0 || this.#parts.services.routing.inFlight() > 0;
  }

  /**
   * How a module reaches this hub: its sync service called in process, the hub's product. A
   * message being handled counts as `busy` (the hub may wait on real I/O: the gazetteer, a
   * proxied web request), so a scenario's clock waits for its answer.
   */
  connection(): HubConnection {
    const { sync } = this.services;
    const busy = this.#parts.busy;
    return {
      inProcess: {
        handle: async (request, transport) => {
          busy.sync++;
          try {
            return await sync.handle(request, transport);
          } finally {
            busy.sync--;
          }
        },
      },
      product: this.productUid,
    };
  }

  async close(): Promise<void> {
    for (const listener of this.#parts.listeners.splice(0)) await listener.close();
    this.services.smartFleets.stop();
    this.services.watchdogs.stop();
    this.services.monitors.stop();
    this.services.jobs.stop();
    await this.services.routing.stop();
    if (this.#parts.app) await (await this.#parts.app).close();
    await this.store.close();
  }
}
