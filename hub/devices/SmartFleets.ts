import type { Clock } from "../../core/Clock.js";
import { eventDocument } from "../events/eventDocument.js";
import type { EventService } from "../events/EventService.js";
import { DrainQueue } from "../events/DrainQueue.js";
import { JsonataCache, JsonataError } from "../events/JsonataCache.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord, FleetRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";

/** What a smart fleet's rule says of the device that sent an event. */
export type RuleVerdict = "add" | "remove" | "unchanged";

/**
 * The definition's reading of a rule's value (FleetRule): 1 puts the device in the fleet, -1
 * takes it out, 0, anything else and an error leave it as it is.
 */
export function ruleVerdict(value: unknown): RuleVerdict {
  if (value === 1) return "add";
  if (value === -1) return "remove";
  return "unchanged";
}

/** A fleet whose rule decides who is in it. */
const isSmart = (f: FleetRecord): f is FleetRecord & { smartRule: string } =>
  f.smartRuleEnabled && typeof f.smartRule === "string" && f.smartRule.trim() !== "";

/**
 * Smart fleets: every stored event of a device is shown to the enabled rule (JSONata, on the hub's
 * clock) of each fleet of its project, as the event's JSON, the document routes see; the device
 * joins or leaves the fleet as the rule says. Events are taken in the order they were stored, a
 * batch at a time after their commit (one look at the project's fleets per batch, so a project
 * without smart fleets costs one query per sync message), and what a batch decides for a device
 * is written once. Membership changes as through the API: the device's next sync sees its new
 * fleets' environment.
 */
export class SmartFleets {
  readonly #store: HubStore;
  readonly #jsonata: JsonataCache;
  readonly #onError: (error: unknown) => void;
  readonly #onMembership: () => void;
  readonly #unsubscribe: () => void;
  readonly #queue: DrainQueue<EventRecord>;

  /** `onMembership`: told after the rules moved a device in or out of a fleet. */
  constructor(
    store: HubStore,
    clock: Clock,
    events: EventService,
    onError: (error: unknown) => void,
    onMembership: () => void = () => undefined,
  ) {
    this.#store = store;
    // Rules run in worker threads with time and memory limits (JsonataCache): a hostile rule fails
    // (leaving memberships as they are), never the hub.
    this.#jsonata = new JsonataCache(() => clock.now(), { workers: 1 });
    this.#onError = onError;
    this.#onMembership = onMembership;
    this.#queue = new DrainQueue((pending) => this.#apply(pending.splice(0)), onError);
    this.#unsubscribe = events.subscribeBatch((batch) => this.#queue.pushAll(batch));
  }

  async #apply(batch: readonly EventRecord[]): Promise<void> {
    const byProject = new Map<string, EventRecord[]>();
    for (const event of batch) {
      const list = byProject.get(event.projectUid);
      if (list) list.push(event);
      else byProject.set(event.projectUid, [event]);
    }
    for (const [projectUid, events] of byProject) {
      const fleets = (await this.#store.projects.listFleets(projectUid)).filter(isSmart);
      if (fleets.length === 0) continue;
      // Each device's fleets as the batch goes, and as they were before it.
      const now = new Map<string, Set<string>>();
      const before = new Map<string, ReadonlySet<string>>();
      for (const event of events) {
        if (this.#queue.stopped) return;
        let member = now.get(event.deviceUid);
        if (!member) {
          const device = await this.#store.devices.getDevice(event.deviceUid);
          // Gone, or provisioned into another project since: not this project's to move.
          if (!device || device.projectUid !== projectUid) continue;
          before.set(device.uid, new Set(device.fleetUids));
          member = new Set(device.fleetUids);
          now.set(device.uid, member);
        }
        const doc = eventDocument(event);
        for (const fleet of fleets) {
          let value: unknown;
          try {
            value = (await this.#jsonata.evaluate(fleet.smartRule, doc)).value;
          } catch (error) {
            // An error leaves the membership as it is (FleetRule); a rule stopped at a limit (time,
            // memory) is told, as the hub's operator will want to know of it.
            if (error instanceof JsonataError && error.limit && !this.#queue.stopped) {
              this.#onError(
                new Error(
                  `smart fleet ${fleet.uid}: its rule was stopped on event ${event.uid}: ${error.message}`,
                ),
              );
            }
            continue;
          }
          const verdict = ruleVerdict(value);
          if (verdict === "add") member.add(fleet.uid);
          else if (verdict === "remove") member.delete(fleet.uid);
        }
      }
      for (const [deviceUid, member] of now) {
        const was = before.get(deviceUid)!;
        const add = [...member].filter((uid) => !was.has(uid));
        // Only a smart fleet's rule ever deletes from `member`: other fleets are left as they were.
        const remove = [...was].filter((uid) => !member.has(uid));
        try {
          if (add.length > 0) await this.#store.devices.addToFleets(deviceUid, add);
          if (remove.length > 0) await this.#store.devices.removeFromFleets(deviceUid, remove);
          if (add.length + remove.length > 0) this.#onMembership();
        } catch (error) {
          // The fleet or the device was deleted meanwhile: nothing is left to change.
          if (!(error instanceof StoreError && error.code === "not-found")) throw error;
        }
      }
    }
  }

  /** Resolves once every event told so far has been through the rules. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops listening (the hub closing) and ends the rules' worker; a batch under way ends at its next event. */
  stop(): void {
    this.#queue.stop();
    this.#unsubscribe();
    void this.#jsonata.close();
  }
}
