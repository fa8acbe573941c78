import { eventDocument } from "../../../../hub/events/eventDocument.js";
import { SeededRandom } from "../../../../core/SeededRandom.js";
import { randomInt } from "../../../../core/Random.js";
import {
  newFleet,
  type EventRecord,
  type EventSortKey,
  type FleetRecord,
} from "../../../../hub/store/records.js";
import type { TestHub } from "../../support/hubFixture.js";

/** 2026-01-05T00:00:00Z, a Monday: the first captured second of the world's events. */
export const BASE_SEC = Date.UTC(2026, 0, 5) / 1000;

export const FILES = ["data.qo", "_session.qo", "_health.qo", "sensors.qo", "config.db", "_log.qo"] as const;
const PLACES = ["Oslo", "Bergen", "Trondheim", "Tromsø"] as const;

type Json = Record<string, unknown>;

/**
 * A project's events with a model of what the Events API must answer: devices in fleets (one of
 * them recorded in another fleet than its own now), serial numbers, sessions, notefiles, places
 * and many equal capture times, stored through the telemetry store in a known order. Another
 * project holds events too, which must never show.
 */
export class EventWorld {
  readonly events: EventRecord[] = [];
  readonly devices: { uid: string; sn: string | null; fleets: string[] }[] = [];
  readonly sessions: string[] = [];
  fleetA!: FleetRecord;
  fleetB!: FleetRecord;
  readonly #random: SeededRandom;
  #counter = 0;

  private constructor(
    readonly hub: TestHub,
    seed: number,
  ) {
    this.#random = new SeededRandom(seed);
  }

  static async build(hub: TestHub, options: { count: number; seed?: number }): Promise<EventWorld> {
    const world = new EventWorld(hub, options.seed ?? 11);
    await world.#setUp();
    await hub.store.transaction(async () => {
      for (let i = 0; i < options.count; i++) await world.add();
    });
    return world;
  }

  async #fleet(label: string): Promise<FleetRecord> {
    const fleet = newFleet({
      uid: this.hub.ids.fleetUid(),
      projectUid: this.hub.projectUid,
      label,
      created: this.hub.clock.now(),
    });
    await this.hub.store.projects.createFleet(fleet);
    return fleet;
  }

  async #setUp(): Promise<void> {
    const hub = this.hub;
    this.fleetA = await this.#fleet("A");
    this.fleetB = await this.#fleet("B");
    const specs: [string | null, string[]][] = [
      ["alpha", [this.fleetA.uid]],
      ["bravo", [this.fleetA.uid, this.fleetB.uid]],
      [null, []],
      ["charlie", [this.fleetB.uid]],
    ];
    for (const [sn, fleets] of specs) {
      const device = await hub.device({ serialNumber: sn, fleetUids: fleets });
      this.devices.push({ uid: device.uid, sn, fleets });
    }
    for (let i = 0; i < 3; i++) this.sessions.push(hub.ids.uuid());
    // Another project's device, with an event of the same look: never part of any answer here.
    await hub.store.devices.putDevice({
      uid: "dev:9000000000009",
      projectUid: hub.otherProjectUid,
      productUid: hub.otherProductUid,
      provisioned: hub.clock.now(),
    });
    await hub.store.telemetry.addEvent({
      uid: hub.ids.uuid(),
      projectUid: hub.otherProjectUid,
      deviceUid: "dev:9000000000009",
      sessionUid: null,
      file: "data.qo",
      received: BASE_SEC,
      whenSec: BASE_SEC,
      data: { req: "note.add", body: { other: true } },
    });
  }

  #pick<T>(items: readonly T[]): T {
    return items[randomInt(this.#random, items.length)]!;
  }

  /** Stores one more event (random unless given) and returns it. */
  async add(fields: Partial<EventRecord> = {}): Promise<EventRecord> {
    const n = this.#counter++;
    const r = (k: number) => randomInt(this.#random, k);
    const device = this.#pick(this.devices);
    const captured = BASE_SEC + r(40) * 3600 * 7; // many ties, over about seven weeks
    const data: Json = { req: "note.add", app: this.hub.projectUid, product: this.hub.productUid };
    if (device.sn !== null) data.sn = device.sn;
    if (r(5) > 0) data.best_id = device.sn ?? device.uid;
    if (r(3) > 0) data.where_location = this.#pick(PLACES);
    if (r(3) > 0) data.tower_location = this.#pick(PLACES);
    if (r(3) > 0) data.tri_location = this.#pick(PLACES);
    if (r(2) > 0) data.best_location = this.#pick(PLACES);
    if (r(2) > 0) data.best_lat = 59 + r(1000) / 1000;
    const body: Json = { n, temperature: 20 + r(100) / 4 };
    if (r(6) === 0) body.note = 'a "quoted", comma\nand a new line';
    if (r(8) === 0) body.nested = { deep: [1, { x: "y" }] };
    data.body = body;
    // Some events carry the fleets they were received in: device 4 ("charlie") was in fleet A then.
    if (device.sn === "charlie" && r(2) === 0) data.fleets = [this.fleetA.uid];
    const event: EventRecord = {
      uid: this.hub.ids.uuid(),
      projectUid: this.hub.projectUid,
      deviceUid: device.uid,
      sessionUid: r(4) === 0 ? null : this.#pick(this.sessions),
      file: this.#pick(FILES),
      received: captured + r(100) + (r(2) === 0 ? 0.25 : 0),
      whenSec: captured,
      data,
      ...fields,
    };
    await this.hub.store.telemetry.addEvent(event);
    this.events.push(event);
    return event;
  }

  /** The event as the API shows it. */
  static view(e: EventRecord): Json {
    return eventDocument(e) as Json;
  }

  /** The event's fleets: those it records, else its device's now. */
  fleetsOf(e: EventRecord): string[] {
    const recorded = e.data.fleets;
    if (Array.isArray(recorded)) return recorded as string[];
    return this.devices.find((d) => d.uid === e.deviceUid)?.fleets ?? [];
  }

  /** The events in the order `sortBy`/`sortOrder` ask for. */
  sorted(events: readonly EventRecord[], by: EventSortKey, descending: boolean): EventRecord[] {
    const text = (v: unknown): string => (typeof v === "string" ? v : "");
    const key = (e: EventRecord): string | null => {
      const d = e.data;
      switch (by) {
        case "captured":
          return null;
        case "modified":
          return null;
        case "device_uid":
          return e.deviceUid;
        case "best_id":
          return text(d.best_id ?? d.sn ?? e.deviceUid);
        case "device_serial":
          return text(d.sn);
        case "device_location":
          return text(d.where_location);
        case "tower_location":
          return text(d.tower_location);
        case "triangulated_location":
          return text(d.tri_location);
        case "best_location":
          return text(d.best_location);
      }
    };
    const seq = new Map(this.events.map((e, i) => [e, i]));
    const cmp = (a: EventRecord, b: EventRecord): number => {
      const ka = key(a);
      const kb = key(b);
      if (ka !== null && kb !== null && ka !== kb) return ka < kb ? -1 : 1;
      if (by === "modified") return a.received - b.received || seq.get(a)! - seq.get(b)!;
      return a.whenSec - b.whenSec || a.received - b.received || seq.get(a)! - seq.get(b)!;
    };
    const out = [...events].sort(cmp);
    return descending ? out.reverse() : out;
  }
}
