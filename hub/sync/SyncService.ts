import type { Clock } from "../../core/Clock.js";
import type { Crypto } from "../../core/Crypto.js";
import { SYNC_ERRORS, type ProtocolReply } from "../../protocol/messages.js";
import { readMessage, type SyncRequest } from "../../protocol/readMessage.js";
import type { DeviceService } from "../devices/DeviceService.js";
import type { DfuService } from "../dfu/DfuService.js";
import type { EventService } from "../events/EventService.js";
import type { HubIds } from "../HubIds.js";
import type { RoutingService } from "../routing/RoutingService.js";
import type { HubStore } from "../store/HubStore.js";
import {
  DEFAULT_HELLO_LIMITS,
  HelloThrottle,
  SharedHelloThrottle,
  type HelloLimiter,
  type HelloLimits,
} from "./HelloThrottle.js";
import { OnlineMessages } from "./OnlineMessages.js";
import type { PlaceNameLookup } from "./placeNames.js";
import { jsonBytes, SessionRecords, type SyncTransport } from "./SessionRecords.js";
import { SessionOpening, type DeviceAuth } from "./SessionOpening.js";
import { SessionTransfers } from "./SessionTransfers.js";
import { SignalWaits } from "./SignalWaits.js";
import { SharedSyncSessions } from "./SharedSyncSessions.js";
import { SyncChallenges, type SpentChallenges } from "./SyncChallenges.js";
import { SessionTickets } from "./SessionTickets.js";
import type { SyncNotifier } from "./SyncNotifier.js";
import { SyncPlaces } from "./SyncPlaces.js";
import { refusal, SyncRefusal } from "./SyncRefusal.js";
import { SyncSessions, type SessionTable } from "./SyncSessions.js";
import type { ZoneLookup } from "./timeZone.js";
import { WebProxy } from "./WebProxy.js";

export type { DeviceAuth } from "./SessionOpening.js";
export type { SyncTransport } from "./SessionRecords.js";
export { MAX_SIGNAL_WAIT_MS } from "./SignalWaits.js";

export interface SyncServiceOptions {
  store: HubStore;
  clock: Clock;
  ids: HubIds;
  events: EventService;
  /** Answers the firmware messages of sessions (`firmware`, `read`, `dfu`). */
  dfu: DfuService;
  /** Makes the module's web requests through the project's proxy routes (`web`). */
  routing: Pick<RoutingService, "webRequest">;
  devices: DeviceService;
  notifier: SyncNotifier;
  /** Checks the modules' signatures (any valid Ed25519 signature passes, whoever made it). */
  crypto: Crypto;
  /**
   * Place to IANA time zone (the open reply's `where`); by default the optional zone package when
   * it is installed (`timeZone.ts`), else UTC everywhere.
   */
  zoneLookup?: ZoneLookup | false;
  /** Place to town name and country (default: the packaged gazetteer, read at the first place). */
  placeNames?: PlaceNameLookup | false;
  /** Told of a fault while handling a message (the module is answered `{hub-error}`). */
  onFault?: (error: unknown, type: string) => void;
  /** Whom the hub lets in (default `tofu`: a device's first session stores its key). */
  deviceAuth?: DeviceAuth;
  /** Hellos answered per device and source address (default `DEFAULT_HELLO_LIMITS`); false: no limit. */
  helloLimits?: HelloLimits | false;
  /**
   * Session tickets (resumed opens): how long one stays good after the proof that earned it
   * (default `TICKET_MS`), and the key that seals them (default: a random key of this hub run, so
   * a restart asks every module for a new proof).
   */
  tickets?: { readonly lifetimeMs?: number; readonly key?: Uint8Array };
}

/** Session tokens expire after this much hub time without a message. */
export const SESSION_IDLE_MS = 15 * 60_000;
/** How long a `hello` challenge may be answered by `open`. */
export const CHALLENGE_MS = 2 * 60_000;
/** How long a session ticket opens sessions after the proof that earned it (hub time). */
export const TICKET_MS = 24 * 60 * 60_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * The hub's end of the sync protocol (docs/sync-protocol.md), without HTTP: `handle` takes one
 * message as it arrived (anything JSON can be) and answers the protocol's reply, a refusal
 * included; it never throws. Each message is one store transaction (a `signals` request waits
 * for signals before its transaction, never inside it). Sessions expire after 15 minutes of hub
 * time without a message. They live in memory (a restarted hub has none, and modules open anew),
 * or, over a store several hub processes share (`HubStore.cluster`), in the store with the
 * challenges' key and the challenges spent: any of the processes answers any message.
 *
 * The parts, one purpose each: `SessionOpening` (hello, open: authentication, provisioning, the
 * module's context), `SessionTransfers` (push, pull, ack, close), `SignalWaits` (signals),
 * `OnlineMessages` (firmware and web messages), on the sessions and records of `SessionRecords`.
 */
export class SyncService {
  readonly #store: HubStore;
  readonly #clock: Clock;
  readonly #ids: HubIds;
  readonly #onFault: (error: unknown, type: string) => void;
  readonly #challenges: SyncChallenges;
  readonly #tickets: SessionTickets;
  readonly #ticketKeyGiven: boolean;
  readonly #throttle: HelloLimiter | undefined;
  readonly #records: SessionRecords;
  readonly #places: SyncPlaces;
  readonly #opening: SessionOpening;
  readonly #transfers: SessionTransfers;
  readonly #signals: SignalWaits;
  readonly #online: OnlineMessages;
  #lastSweep = Number.NEGATIVE_INFINITY;
  /** Set once the devices a previous run of the hub left connected were marked not connected. */
  #started: Promise<unknown> | undefined;
  /** True once `#started` has resolved: later messages do not wait on it (a microtask turn each). */
  #ready = false;

  constructor(options: SyncServiceOptions) {
    const { store, clock, events } = options;
    this.#store = store;
    this.#clock = clock;
    this.#ids = options.ids;
    this.#onFault = options.onFault ?? (() => undefined);
    const limits = options.helloLimits ?? DEFAULT_HELLO_LIMITS;
    this.#throttle = !limits
      ? undefined
      : store.cluster
        ? new SharedHelloThrottle(limits, store.cluster)
        : new HelloThrottle(limits);
    const afterCommit = (action: () => void) => store.afterCommit(action);
    const cluster = store.cluster;
    const sessions: SessionTable = cluster
      ? new SharedSyncSessions(SESSION_IDLE_MS, cluster, afterCommit)
      : new SyncSessions(SESSION_IDLE_MS, afterCommit);
    const spent: SpentChallenges | undefined = cluster && {
      has: (challenge) => cluster.challengeSpent(challenge),
      spend: (challenge, expires) => cluster.spendChallenge(challenge, expires),
      prune: (now) => cluster.pruneChallenges(now),
    };
    this.#challenges = new SyncChallenges(CHALLENGE_MS, undefined, spent);
    this.#tickets = new SessionTickets(options.tickets?.lifetimeMs ?? TICKET_MS, options.tickets?.key);
    this.#ticketKeyGiven = options.tickets?.key !== undefined;
    const records = new SessionRecords(store, clock, events, sessions);
    const places = new SyncPlaces(options);
    this.#records = records;
    this.#places = places;
    this.#transfers = new SessionTransfers({ store, clock, events, places, records });
    const transfers = this.#transfers;
    this.#opening = new SessionOpening({
      store,
      clock,
      ids: options.ids,
      events,
      devices: options.devices,
      crypto: options.crypto,
      challenges: this.#challenges,
      tickets: this.#tickets,
      throttle: this.#throttle,
      deviceAuth: options.deviceAuth ?? "tofu",
      places,
      records,
      push: (session, device, batch, transport) => transfers.push(session, device, batch, transport),
      firmwareOffer: (device, variable) => options.dfu.offer(device, variable),
    });
    this.#signals = new SignalWaits({ store, clock, notifier: options.notifier, records });
    const web = new WebProxy(options.routing, clock);
    this.#online = new OnlineMessages({ store, dfu: options.dfu, web, records });
  }

  /** Answers one message of the protocol. */
  async handle(message: unknown, transport: SyncTransport): Promise<ProtocolReply> {
    let request: SyncRequest;
    try {
      request = readMessage(message);
    } catch (error) {
      if (error instanceof SyncRefusal) return error.reply();
      this.#onFault(error, "?");
      return refusal(SYNC_ERRORS.hub, "the hub failed to read the message");
    }
    const bytes = transport.bytes ?? jsonBytes(message);
    try {
      if (!this.#ready) await this.#begun();
      // Swept once a minute of hub time at most: no promise waited on in between.
      const now = this.#clock.now();
      if (now - this.#lastSweep >= SWEEP_EVERY_MS) await this.#sweep(now);
      return await this.#answer(request, transport, bytes);
    } catch (error) {
      if (error instanceof SyncRefusal) return error.reply();
      this.#onFault(error, request.type);
      return refusal(SYNC_ERRORS.hub, `the hub failed to handle ${request.type}; try again`);
    }
  }

  /** The hub's start (`#start`), once: every message waits for it until it is over. */
  async #begun(): Promise<void> {
    this.#started ??= this.#start().catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    await this.#started;
    this.#ready = true;
  }

  /**
   * A starting hub holds no sessions: no device is connected (whatever the last run left). Over a
   * shared store, only the devices no session of any process holds, and the challenges' key is the
   * one every process uses.
   */
  async #start(): Promise<void> {
    const cluster = this.#store.cluster;
    if (!cluster) {
      await this.#store.devices.disconnectAll();
      return;
    }
    this.#challenges.useKey(await cluster.sharedSecret("sync-challenges", () => this.#ids.bytes(32)));
    // A ticket key given by the caller stands; else the one every process over the store uses.
    if (!this.#ticketKeyGiven) {
      this.#tickets.useKey(await cluster.sharedSecret("sync-tickets", () => this.#ids.bytes(32)));
    }
    await cluster.disconnectUnheld();
  }

  async #answer(request: SyncRequest, transport: SyncTransport, bytes: number): Promise<ProtocolReply> {
    // Notes with a place are named in the transaction: the gazetteer is read before it, once.
    if (request.type === "push" && request.notes.some((n) => n.where)) await this.#places.names();
    switch (request.type) {
      case "hello":
        return await this.#opening.hello(request, bytes, transport.source);
      case "open":
        return await this.#opening.open(request, transport, bytes);
      case "signals":
        return await this.#signals.signals(request, bytes);
      case "firmware":
      case "read":
      case "dfu":
        return await this.#online.firmware(request, bytes);
      case "web":
        return await this.#online.web(request, bytes);
      default: {
        const reply = await this.#store.transaction(() => this.#transfers.handle(request, transport, bytes));
        // A closed session's wait for signals ends with it.
        if (request.type === "close") this.#signals.release(request.token);
        return reply;
      }
    }
  }

  /** Ends every `signals` wait now (the hub is closing); each is answered as if its wait were over. */
  releaseWaits(): void {
    this.#signals.releaseAll();
  }

  /**
   * The device's key was pinned anew: its open sessions (opened with the key it had) end now, and
   * the module proves the new key at its next `open`.
   */
  async keyChanged(deviceUid: string): Promise<void> {
    await this.#store.transaction(async () => {
      for (const session of await this.#records.sessions.ofDevice(deviceUid))
        await this.#records.end(session, "device key changed", this.#clock.now());
    });
  }

  /** Sessions open now (opened through this process, over a shared store). */
  get openSessions(): number {
    return this.#records.sessions.size;
  }

  /** Ends the sessions that expired (once a minute of hub time at most, while messages arrive). */
  async #sweep(now: number): Promise<void> {
    this.#lastSweep = now;
    await this.#challenges.prune(now);
    this.#throttle?.prune(now);
    // Over a shared store, taken out and ended in one transaction, by one process only; in
    // memory, taken out first, so that a minute with nothing expired costs no transaction.
    const gone = this.#store.cluster ? undefined : await this.#records.sessions.sweep(now);
    if (gone?.length === 0) return;
    await this.#store.transaction(async () => {
      for (const session of gone ?? (await this.#records.sessions.sweep(now)))
        await this.#records.end(session, "session expired", session.lastSeenMs);
    });
  }
}
