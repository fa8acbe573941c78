import type { Clock } from "../core/Clock.js";
import type { Crypto } from "../core/Crypto.js";
import { SeededCrypto } from "../core/SeededCrypto.js";
import { Authenticator } from "./auth/Authenticator.js";
import { LoginThrottle, SharedLoginThrottle, type GuessThrottle } from "./auth/LoginThrottle.js";
import { RateLimiter, SharedRateLimiter, type ApiRateLimiter, type RateLimits } from "./auth/RateLimiter.js";
import { DeviceService } from "./devices/DeviceService.js";
import { FleetWatchdogs } from "./devices/FleetWatchdogs.js";
import { SmartFleets } from "./devices/SmartFleets.js";
import { DfuService } from "./dfu/DfuService.js";
import { FirmwareService } from "./dfu/FirmwareService.js";
import { EventService, type NewEvent } from "./events/EventService.js";
import { HubFeed } from "./feed/HubFeed.js";
import { HubIds } from "./HubIds.js";
import { JobService } from "./jobs/JobService.js";
import { MonitorService } from "./monitors/MonitorService.js";
import { ephemeralSecretKey } from "./integrations/SecretBox.js";
import { Integrations } from "./integrations/Integrations.js";
import { NoteService } from "./notes/NoteService.js";
import { RoutingService, type RoutingOptions } from "./routing/RoutingService.js";
import type { HubStore } from "./store/HubStore.js";
import type { EventRecord } from "./store/records.js";
import { relayAcrossProcesses } from "./clusterRelay.js";
import { SyncNotifier } from "./sync/SyncNotifier.js";
import type { HelloLimits } from "./sync/HelloThrottle.js";
import { SyncService, type DeviceAuth, type SyncServiceOptions } from "./sync/SyncService.js";
import type { PlaceNameLookup } from "./sync/placeNames.js";
import type { ZoneLookup } from "./sync/timeZone.js";

/**
 * The hub without HTTP: what the API's routes use, and what in-process callers (tests, the
 * runtime, fleets, the device sync) call directly. One instance serves both, so an event
 * recorded by a route reaches the same subscribers as one recorded in process.
 */
export interface HubServices {
  readonly store: HubStore;
  readonly clock: Clock;
  readonly ids: HubIds;
  readonly auth: Authenticator;
  /** The API's limits per billing account (shared by the hub processes over one PostgreSQL store). */
  readonly limiter: ApiRateLimiter;
  /** Slows password guessing per username (`POST /auth/login`), across the hub processes. */
  readonly logins: GuessThrottle;
  /** Slows device-PIN guessing per device (`…/environment_variables_with_pin`), across the hub processes. */
  readonly pins: GuessThrottle;
  /** The base URL clients reach this hub at (links in environment hierarchies). */
  publicUrl(): string;
  /** Device events: stored on the hub clock, handed to subscribers once committed. */
  readonly events: EventService;
  /** Provisioning and registering devices. */
  readonly devices: DeviceService;
  /** Fleets whose JSONata rule decides, event by event, which devices are in them. */
  readonly smartFleets: SmartFleets;
  /** Fleets' watchdogs: an event for each member silent for `watchdog_mins`. */
  readonly watchdogs: FleetWatchdogs;
  /** Hub-side note changes of a device's notefiles, recorded as events. */
  readonly notes: NoteService;
  /** The hub's end of the device sync protocol (docs/sync-protocol.md). */
  readonly sync: SyncService;
  /** Wakes sessions waiting for a device's signals or notefile changes (continuous mode). */
  readonly notifier: SyncNotifier;
  /** Routes: their definitions, event delivery on the hub clock, proxied web requests. */
  readonly routing: RoutingService;
  /** Firmware images of projects (upload, list, download, ranged reads). */
  readonly firmware: FirmwareService;
  /** Firmware updates of devices: requests, their history, and the protocol's firmware messages. */
  readonly dfu: DfuService;
  /** What happens as it happens: events, sessions, route deliveries, DFU steps (the live pages). */
  readonly feed: HubFeed;
  /** Monitors evaluated against events on the hub clock, raising and clearing alerts. */
  readonly monitors: MonitorService;
  /** Batch jobs: runs applying a job's requests to the devices it selects, on the hub clock. */
  readonly jobs: JobService;
  /** Webhook and global transformations (JSONata) and the box project secrets are sealed in. */
  readonly integrations: Integrations;
}

export interface HubServicesOptions {
  store: HubStore;
  clock: Clock;
  /** Identifier source (seeded in tests). */
  ids?: HubIds;
  /** Per-billing-account API limits; `false` turns them off. */
  rateLimits: RateLimits | false;
  /** The base URL clients use (default http://localhost). */
  publicUrl?: () => string;
  /** Told when an event subscriber throws; the event is stored and delivered to the others anyway. */
  onListenerError?: (error: unknown, event: EventRecord) => void;
  /** Checks the modules' signatures (default: Ed25519 in JavaScript; any valid signature passes). */
  crypto?: Crypto;
  /** Place to IANA time zone for the sync (default: the optional zone package, else UTC). */
  zoneLookup?: ZoneLookup | false;
  /** Place to town name and country (default: the packaged gazetteer; false: places stay unnamed). */
  placeNames?: PlaceNameLookup | false;
  /** Told of a fault while handling a sync message (the module is answered `{hub-error}`). */
  onSyncFault?: (error: unknown, type: string) => void;
  /** Whom the device sync lets in: `tofu` (default, a device's first key is kept) or `pinned`. */
  deviceAuth?: DeviceAuth;
  /** Hellos the device sync answers per device and source address (default generous); false: no limit. */
  helloLimits?: HelloLimits | false;
  /** Session tickets of the device sync: lifetime after the proof, and the key sealing them. */
  syncTickets?: SyncServiceOptions["tickets"];
  /** Route delivery settings (retry delays). */
  routing?: RoutingOptions;
  /** Told of a fault of route delivery (a store failure); delivery goes on. */
  onRoutingError?: (error: unknown) => void;
  /** Told of a fault of smart fleet rules or fleet watchdogs (a store failure); they go on. */
  onFleetError?: (error: unknown) => void;
  /** Told of a fault of monitors or batch jobs (a store failure); they go on. */
  onAutomationError?: (error: unknown) => void;
  /**
   * The key project secrets are encrypted with (32 bytes; startHub keeps it in `dir/secrets.key`).
   * Without one, a key of this process's own: secrets stored do not open after a restart.
   */
  secretKey?: Uint8Array;
  /** Told when a project's global transformation fails on an event (the event is kept as it came). */
  onTransformError?: (error: unknown, event: NewEvent) => void;
}

/** Assembles the hub's services over a store and a clock; no fastify involved. */
export function createHubServices(options: HubServicesOptions): HubServices {
  const { store, clock } = options;
  const ids = options.ids ?? new HubIds();
  const events = new EventService(store, clock, ids, options.onListenerError);
  const integrations = new Integrations(
    store,
    clock,
    options.secretKey ?? ephemeralSecretKey(),
    options.onTransformError,
  );
  events.prepareWith((batch) => integrations.transformEvents(batch));
  const feed = new HubFeed();
  events.subscribeBatch((batch) => {
    if (feed.listening) for (const event of batch) feed.event(event);
  });
  const notifier = new SyncNotifier();
  if (store.cluster)
    relayAcrossProcesses(store.cluster, store, notifier, feed, options.onRoutingError ?? (() => undefined));
  const devices = new DeviceService(store, clock, notifier);
  // The hub only verifies signatures, so the key-making randomness of the default is never used.
  const crypto = options.crypto ?? new SeededCrypto({ nextUint32: () => 0 });
  const firmware = new FirmwareService(store, clock);
  const dfu = new DfuService(store, clock, firmware, (request) => feed.dfu(request));
  // Before the sync, which proxies the modules' web requests through it.
  const routing = new RoutingService(store, clock, ids, events, options.onRoutingError, {
    ...options.routing,
    onAttempt: (log) => feed.delivery(log),
    secrets: (projectUid, text) => integrations.resolveSecrets(projectUid, text),
  });
  const onFleetError = options.onFleetError ?? (() => undefined);
  const watchdogs = new FleetWatchdogs(store, clock, events, onFleetError);
  const onAutomationError = options.onAutomationError ?? (() => undefined);
  return {
    store,
    clock,
    ids,
    auth: new Authenticator(store, clock),
    // Several processes over one store count in it; one process alone counts in its memory.
    limiter: store.cluster
      ? new SharedRateLimiter(clock, options.rateLimits, store.cluster)
      : new RateLimiter(clock, options.rateLimits),
    logins: store.cluster ? new SharedLoginThrottle(clock, store.cluster, "login") : new LoginThrottle(clock),
    pins: store.cluster ? new SharedLoginThrottle(clock, store.cluster, "pin") : new LoginThrottle(clock),
    publicUrl: options.publicUrl ?? (() => "http://localhost"),
    events,
    devices,
    smartFleets: new SmartFleets(store, clock, events, onFleetError, () => watchdogs.changed()),
    watchdogs,
    notes: new NoteService(store, events, clock, notifier),
    notifier,
    sync: new SyncService({
      store,
      clock,
      ids,
      events,
      devices,
      notifier,
      crypto,
      dfu,
      routing,
      ...(options.zoneLookup !== undefined ? { zoneLookup: options.zoneLookup } : {}),
      ...(options.placeNames !== undefined ? { placeNames: options.placeNames } : {}),
      ...(options.onSyncFault ? { onFault: options.onSyncFault } : {}),
      ...(options.deviceAuth ? { deviceAuth: options.deviceAuth } : {}),
      ...(options.helloLimits !== undefined ? { helloLimits: options.helloLimits } : {}),
      ...(options.syncTickets ? { tickets: options.syncTickets } : {}),
    }),
    routing,
    firmware,
    dfu,
    feed,
    monitors: new MonitorService(store, clock, ids, events, onAutomationError),
    jobs: new JobService(store, clock, notifier, onAutomationError, () => watchdogs.changed()),
    integrations,
  };
}
