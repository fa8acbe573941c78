import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import type { HubIds } from "../HubIds.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";

/** An event as its source knows it; the hub adds when it received it (and a UID, unless given). */
export interface NewEvent {
  projectUid: string;
  deviceUid: string;
  file: string;
  /** The event document as the API returns it. */
  data: JsonObject;
  /** `data` as JSON text, when its maker wrote it already (see `EventRecord.dataText`). */
  dataText?: string;
  sessionUid?: string | null;
  /** A UID derived from content (the device sync: a note sent twice is one event); new by default. */
  uid?: string;
  /** Epoch seconds the device captured it; by default the second it was received. */
  whenSec?: number;
}

/** Told about every event once it is stored for good. */
export type EventListener = (event: EventRecord) => void | Promise<void>;

/**
 * Told once about the events a store call stored for good (one or more, in the order they were
 * stored; never an empty list): for subscribers that queue or group what they hear, so that a
 * batch of a sync costs them one call rather than one per event.
 */
export type EventBatchListener = (events: readonly EventRecord[]) => void | Promise<void>;

/** A subscriber: told event by event, or a batch at a time. */
type Subscriber = { readonly each: EventListener } | { readonly batch: EventBatchListener };

/**
 * Stores the events of devices and hands each to the subscribers (routing subscribes). The
 * receive time is the hub clock's. Inside a store transaction, subscribers hear of an event
 * only after the transaction committed, and never of one whose transaction rolled back.
 * Subscribers are called one after another, synchronously, in the order they subscribed (each
 * told of the events of a store call before the next is); one that throws (or rejects) is
 * reported to `onListenerError` and changes nothing for the events or the other subscribers.
 */
export class EventService {
  readonly #listeners: Subscriber[] = [];
  #prepare: ((events: readonly NewEvent[]) => readonly NewEvent[] | Promise<readonly NewEvent[]>) | undefined;

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly ids: HubIds,
    private readonly onListenerError: (error: unknown, event: EventRecord) => void = () => undefined,
  ) {}

  /**
   * What every event goes through before it is stored (the project's global transformation), a
   * batch at a time (the events given back in their order); set once by the hub's assembly.
   */
  prepareWith(
    prepare: (events: readonly NewEvent[]) => readonly NewEvent[] | Promise<readonly NewEvent[]>,
  ): void {
    this.#prepare = prepare;
  }

  /** Stores the event; resolves with the stored record (subscribers told as described above). */
  async record(event: NewEvent): Promise<EventRecord> {
    // Prepared at once when nothing is to be read for it (no promise waited on).
    const prepared = this.#prepare?.([event]);
    const made =
      prepared === undefined ? event : (prepared instanceof Promise ? await prepared : prepared)[0]!;
    const record = this.#make(made, this.clock.now() / 1000);
    if (await this.store.telemetry.addEvent(record)) this.store.afterCommit(() => this.#publish([record]));
    return record;
  }

  /**
   * Stores events whose UIDs their source derived from content, all or none, leaving out each
   * one whose UID is stored already (a note uploaded again): resolves with the records stored now
   * (nothing is stored for a repeat, and nobody is told of it).
   */
  async recordOnce(events: readonly (NewEvent & { uid: string })[]): Promise<EventRecord[]> {
    if (events.length === 0) return [];
    const preparing = this.#prepare?.(events) ?? events;
    const prepared = preparing instanceof Promise ? await preparing : preparing;
    // One receive time for the batch: the hub clock does not move while it is made.
    const received = this.clock.now() / 1000;
    const records = prepared.map((e) => this.#make(e, received));
    const stored = await this.store.telemetry.addEvents(records);
    const fresh = records.filter((_, i) => stored[i]);
    if (fresh.length > 0) this.store.afterCommit(() => this.#publish(fresh));
    return fresh;
  }

  #make(event: NewEvent, received: number): EventRecord {
    const record: EventRecord = {
      uid: event.uid ?? this.ids.uuid(),
      projectUid: event.projectUid,
      deviceUid: event.deviceUid,
      sessionUid: event.sessionUid ?? null,
      file: event.file,
      received,
      whenSec: event.whenSec ?? Math.floor(received),
      data: event.data,
    };
    if (event.dataText !== undefined) record.dataText = event.dataText;
    return record;
  }

  /** Adds a subscriber; the function returned removes it (subscribing twice means told twice). */
  subscribe(listener: EventListener): () => void {
    return this.#add({ each: listener });
  }

  /** Adds a subscriber told a batch at a time (see EventBatchListener); the function removes it. */
  subscribeBatch(listener: EventBatchListener): () => void {
    return this.#add({ batch: listener });
  }

  #add(entry: Subscriber): () => void {
    this.#listeners.push(entry);
    return () => {
      const index = this.#listeners.indexOf(entry);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** Tells every subscriber of the events one store call stored (the subscribers of now). */
  #publish(events: readonly EventRecord[]): void {
    for (const entry of [...this.#listeners]) {
      if ("batch" in entry) this.#tell(entry.batch, events, events[0]!);
      else for (const event of events) this.#tell(entry.each, event, event);
    }
  }

  /** Calls a subscriber; a fault of it (thrown or rejected) is reported as about `event`. */
  #tell<T>(listener: (arg: T) => void | Promise<void>, arg: T, event: EventRecord): void {
    try {
      const result = listener(arg);
      if (result instanceof Promise) result.catch((error: unknown) => this.#failed(error, event));
    } catch (error) {
      this.#failed(error, event);
    }
  }

  #failed(error: unknown, event: EventRecord): void {
    try {
      this.onListenerError(error, event);
    } catch {
      // Reporting must not break recording either.
    }
  }
}
