import type { Clock } from "../core/Clock.js";
import { Authenticator } from "./auth/Authenticator.js";
import { RateLimiter, type RateLimits } from "./auth/RateLimiter.js";
import { DeviceService } from "./devices/DeviceService.js";
import { DfuService } from "./dfu/DfuService.js";
import { FirmwareService } from "./dfu/FirmwareService.js";
import { EventService } from "./events/EventService.js";
import { HubIds } from "./HubIds.js";
import { NoteService } from "./notes/NoteService.js";
import type { HubStore } from "./store/HubStore.js";
import type { EventRecord } from "./store/records.js";

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
  readonly limiter: RateLimiter;
  /** The base URL clients reach this hub at (links in environment hierarchies). */
  publicUrl(): string;
  /** Device events: stored on the hub clock, handed to subscribers once committed. */
  readonly events: EventService;
  /** Provisioning and registering devices. */
  readonly devices: DeviceService;
  /** Hub-side note changes of a device's notefiles, recorded as events. */
  readonly notes: NoteService;
  /** Firmware images of projects (upload, list, download, ranged reads). */
  readonly firmware: FirmwareService;
  /** Firmware updates of devices: requests, their history, and the protocol's firmware messages. */
  readonly dfu: DfuService;
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
}

/** Assembles the hub's services over a store and a clock; no fastify involved. */
export function createHubServices(options: HubServicesOptions): HubServices {
  const { store, clock } = options;
  const ids = options.ids ?? new HubIds();
  const events = new EventService(store, clock, ids, options.onListenerError);
  const firmware = new FirmwareService(store, clock);
  return {
    store,
    clock,
    ids,
    auth: new Authenticator(store, clock),
    limiter: new RateLimiter(clock, options.rateLimits),
    publicUrl: options.publicUrl ?? (() => "http://localhost"),
    events,
    devices: new DeviceService(store, clock),
    notes: new NoteService(store, events, clock),
    firmware,
    dfu: new DfuService(store, clock, firmware),
  };
}
