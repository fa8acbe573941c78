import { Alarm } from "../../core/Alarm.js";
import type { Clock } from "../../core/Clock.js";
import type { EventService } from "../events/EventService.js";
import type { HubStore } from "../store/HubStore.js";
import type { DeviceRecord } from "../store/records.js";

/** The notefile of the events a fleet's watchdog makes. */
export const WATCHDOG_FILE = "_watchdog.qo";

const MINUTE_MS = 60_000;
/** Devices read per page while looking through a fleet. */
const PAGE = 1000;

/**
 * Fleet watchdogs (`watchdog_mins`): a device of a fleet with a watchdog that has shown no
 * activity (a session: the device record's `last_activity`, or its provisioning before any) for
 * that many minutes gets a `_watchdog.qo` event, and another every as many minutes while it stays
 * silent. A device in several such fleets is watched at the shortest period. Timed on the hub's
 * clock with one timer, set for the earliest device due; the API's fleet and membership changes
 * call `changed()` so that a new watchdog starts at once. The time of the last watchdog event is
 * kept in memory: after a restart, a device still silent gets its next one at most a period on.
 */
export class FleetWatchdogs {
  readonly #store: HubStore;
  readonly #clock: Clock;
  readonly #events: EventService;
  readonly #onError: (error: unknown) => void;
  /** Device UID -> when its last watchdog event was made (ms). */
  readonly #barked = new Map<string, number>();
  readonly #alarm: Alarm;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(store: HubStore, clock: Clock, events: EventService, onError: (error: unknown) => void) {
    this.#store = store;
    this.#clock = clock;
    this.#events = events;
    this.#onError = onError;
    this.#alarm = new Alarm(clock, () => this.changed());
    this.changed();
  }

  /** Fleets, their watchdogs or their members changed: look again now. */
  changed(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#check()
      .catch((error: unknown) => {
        if (!this.#stopped) this.#onError(error);
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.changed();
        }
      });
  }

  /** Resolves once the look under way (and any asked for meanwhile) is over. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  stop(): void {
    this.#stopped = true;
    this.#alarm.cancel();
  }

  async #check(): Promise<void> {
    const now = this.#clock.now();
    // Each watched device's shortest period, and its project.
    const watched = new Map<string, { device: DeviceRecord; periodMs: number }>();
    for (const project of await this.#store.projects.listProjects()) {
      for (const fleet of await this.#store.projects.listFleets(project.uid)) {
        if (!(fleet.watchdogMins > 0)) continue;
        const periodMs = fleet.watchdogMins * MINUTE_MS;
        for (let offset = 0; ; offset += PAGE) {
          const page = await this.#store.devices.listDevices(
            project.uid,
            { fleetUids: [fleet.uid] },
            { offset, limit: PAGE },
          );
          for (const device of page.items) {
            const seen = watched.get(device.uid);
            if (!seen || periodMs < seen.periodMs) watched.set(device.uid, { device, periodMs });
          }
          if (page.items.length < PAGE) break;
        }
      }
    }
    for (const uid of this.#barked.keys()) if (!watched.has(uid)) this.#barked.delete(uid);
    let next = Infinity;
    for (const { device, periodMs } of watched.values()) {
      if (this.#stopped) return;
      const active = Math.max(device.lastActivity ?? 0, device.provisioned);
      const barked = this.#barked.get(device.uid) ?? 0;
      const from = Math.max(barked, active);
      if (now - from >= periodMs) {
        await this.#events.record({
          projectUid: device.projectUid,
          deviceUid: device.uid,
          file: WATCHDOG_FILE,
          data: {
            body: {
              minutes: periodMs / MINUTE_MS,
              last_activity: Math.floor(active / 1000),
              silent_mins: Math.floor((now - active) / MINUTE_MS),
            },
          },
        });
        this.#barked.set(device.uid, now);
        next = Math.min(next, now + periodMs);
      } else next = Math.min(next, from + periodMs);
    }
    if (!this.#stopped) this.#alarm.at(next, now);
  }
}
