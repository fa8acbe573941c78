import { isJsonObject, type JsonObject } from "../../core/json.js";
import { eventDocument } from "../events/eventDocument.js";
import type { DfuRequestRecord } from "../store/FirmwareStore.js";
import type { EventRecord } from "../store/records.js";
import type { RouteLogRecord } from "../store/RouteStore.js";

/** The notefile of the hub's own session events (`session.begin`, `session.end`). */
const SESSION_FILE = "_session.qo";

/** An event as it was stored: its document as the API returns it. */
export interface FeedEvent {
  kind: "event";
  projectUid: string;
  deviceUid: string;
  file: string;
  /** Epoch ms the hub received it. */
  atMs: number;
  event: JsonObject;
}

/** A device's session opened or closed (told from its `_session.qo` event). */
export interface FeedSession {
  kind: "session";
  phase: "begin" | "end";
  projectUid: string;
  deviceUid: string;
  sessionUid: string;
  atMs: number;
  /** Why it opened (the module's trigger) or closed. */
  why: string;
  /** The session's counts, when it ended. */
  period?: JsonObject;
}

/** One attempt of a route to deliver an event (or a web request through a proxy route). */
export interface FeedDelivery {
  kind: "delivery";
  projectUid: string;
  deviceUid: string;
  routeUid: string;
  eventUid: string;
  file: string;
  atMs: number;
  durationMs: number;
  /** True when the attempt failed or the endpoint answered with an error. */
  failed: boolean;
  status: string;
  text: string;
  url: string;
}

/** A step of a device's firmware update: requested, reported by the module, ended. */
export interface FeedDfu {
  kind: "dfu";
  projectUid: string;
  deviceUid: string;
  /** `host` (user firmware) or `card` (the module's own). */
  type: string;
  filename: string;
  state: string;
  /** The newest step's phase and text (`downloading`, `completed`, ...). */
  phase: string;
  text: string;
  atMs: number;
}

export type FeedItem = FeedEvent | FeedSession | FeedDelivery | FeedDfu;
export type FeedKind = FeedItem["kind"];
export const FEED_KINDS: readonly FeedKind[] = ["event", "session", "delivery", "dfu"];

export type FeedListener = (item: FeedItem) => void;

/**
 * What happens in the hub as it happens, for the console's live pages, `cardsim tail` and the
 * command line's lines: events once stored (and sessions told from their `_session.qo` events),
 * route deliveries as each attempt ends, DFU steps. In process only: listeners are called
 * synchronously, one that throws is skipped and the others are told all the same. Over a store
 * several hub processes share, `relayTo` passes what happens here on to the others, whose
 * `publishHere` tells their listeners: the console's stream of any process shows the whole fleet.
 */
export class HubFeed {
  readonly #listeners = new Set<{ listener: FeedListener }>();
  #relay: { send: FeedListener; wanted: () => boolean; told: (listening: boolean) => void } | undefined;

  /**
   * Passes every item published here on to `send` too (the other hub processes) while `wanted`
   * says another process has listeners; `told` hears when this one starts or stops having any.
   */
  relayTo(send: FeedListener, wanted: () => boolean, told: (listening: boolean) => void): void {
    this.#relay = { send, wanted, told };
  }

  subscribe(listener: FeedListener): () => void {
    const entry = { listener };
    this.#listeners.add(entry);
    if (this.#listeners.size === 1) this.#relay?.told(true);
    return () => {
      if (this.#listeners.delete(entry) && this.#listeners.size === 0) this.#relay?.told(false);
    };
  }

  /** Someone hears the feed: a listener of this process, or (relayed) of another. */
  get listening(): boolean {
    return this.#listeners.size > 0 || this.#relay?.wanted() === true;
  }

  /** This process has listeners of its own. */
  get listeningHere(): boolean {
    return this.#listeners.size > 0;
  }

  publish(item: FeedItem): void {
    this.publishHere(item);
    try {
      if (this.#relay?.wanted()) this.#relay.send(item);
    } catch {
      // The other processes miss it; this one's listeners were told.
    }
  }

  /** Tells this process's listeners only. */
  publishHere(item: FeedItem): void {
    for (const { listener } of [...this.#listeners]) {
      try {
        listener(item);
      } catch {
        // A listener's fault is its own: the feed goes on for the others.
      }
    }
  }

  /** An event stored; a session's begin or end event is told as a session too. */
  event(record: EventRecord): void {
    if (!this.listening) return;
    const atMs = Math.round(record.received * 1000);
    const base = { projectUid: record.projectUid, deviceUid: record.deviceUid };
    this.publish({ kind: "event", ...base, file: record.file, atMs, event: eventDocument(record) });
    const req = record.data["req"];
    if (record.file !== SESSION_FILE || (req !== "session.begin" && req !== "session.end")) return;
    const body = (record.data["body"] ?? {}) as JsonObject;
    const period = body["period"];
    this.publish({
      kind: "session",
      phase: req === "session.begin" ? "begin" : "end",
      ...base,
      sessionUid: record.sessionUid ?? "",
      atMs,
      why: typeof body["why"] === "string" ? body["why"] : "",
      ...(isJsonObject(period) ? { period } : {}),
    });
  }

  /** A route's attempt ended with this log. */
  delivery(log: RouteLogRecord): void {
    if (!this.listening) return;
    this.publish({
      kind: "delivery",
      projectUid: log.projectUid,
      deviceUid: log.deviceUid,
      routeUid: log.routeUid,
      eventUid: log.eventUid,
      file: log.file,
      atMs: log.dateMs,
      durationMs: log.durationMs,
      failed: log.attn,
      status: log.status,
      text: log.text,
      url: log.url,
    });
  }

  /** A firmware update's request changed: opened, a step reported by the module, ended. */
  dfu(request: DfuRequestRecord): void {
    if (!this.listening) return;
    const step = request.updates.at(-1);
    this.publish({
      kind: "dfu",
      projectUid: request.projectUid,
      deviceUid: request.deviceUid,
      type: request.type,
      filename: request.filename,
      state: request.state,
      phase: step?.phase ?? request.state,
      text: step?.description ?? "",
      atMs: step?.when ?? request.initiated,
    });
  }
}
