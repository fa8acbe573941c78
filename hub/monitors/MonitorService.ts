import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { eventDocument } from "../events/eventDocument.js";
import type { EventService } from "../events/EventService.js";
import { DrainQueue } from "../events/DrainQueue.js";
import { JsonataCache } from "../events/JsonataCache.js";
import type { HubIds } from "../HubIds.js";
import type { MonitorRecord } from "../store/AutomationStore.js";
import type { HubStore } from "../store/HubStore.js";
import type { EventRecord } from "../store/records.js";
import { clearedAlert, firedAlert, notificationsOf, type Trigger } from "./alertDocuments.js";
import { aggregateOf, meets, monitorRules, takesFile, type MonitorRules } from "./monitorRules.js";

/** The values of one key (a device, or `*` across devices) in one window of a monitor. */
interface Window {
  start: number;
  end: number;
  values: number[];
  /** The condition held in this window already: no second alert from it. */
  fired: boolean;
  timer: TimerHandle | undefined;
}

type Work =
  | { kind: "events"; events: readonly EventRecord[] }
  | { kind: "close"; monitorUid: string; key: string; window: Window };

/** What the evaluation keeps in the monitor's row: the alert open per key, when it last routed. */
interface MonitorState {
  open: Record<string, string>;
  last_routed_ms?: number;
}

const stateOf = (m: MonitorRecord): MonitorState => {
  const s = m.state as Partial<MonitorState>;
  return {
    open: { ...(s.open ?? {}) },
    ...(typeof s.last_routed_ms === "number" ? { last_routed_ms: s.last_routed_ms } : {}),
  };
};

/**
 * Monitors, evaluated on the hub clock against the project's stored events (subscribed as routes
 * and smart fleets are). Each event a monitor takes (its source, notefiles and fleets) gives a
 * value (the `source_selector`, JSONata over the event's document). Without an aggregate each
 * value is judged alone, per device: the alert fires when one meets the condition and clears when
 * one no longer does. With an aggregate (or `count`) values are gathered in windows of
 * `aggregate_window` that begin at the first value: the alert fires as soon as the window's
 * aggregate meets the condition, at most once per window, and clears at the end of a window whose
 * aggregate does not (an alert left open is looked at again after each further window, values or
 * none). Notifications are left out while the monitor is silenced or within its routing cooldown.
 * Windows live in memory: a hub restarting begins them again (open alerts are kept in the store).
 */
export class MonitorService {
  readonly #jsonata: JsonataCache;
  readonly #windows = new Map<string, Map<string, Window>>();
  readonly #unsubscribe: () => void;
  readonly #queue: DrainQueue<Work>;

  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
    private readonly ids: HubIds,
    events: EventService,
    onError: (error: unknown) => void,
  ) {
    this.#jsonata = new JsonataCache(() => clock.now(), { workers: 1 });
    this.#queue = new DrainQueue((pending) => this.#step(pending), onError);
    this.#unsubscribe = events.subscribeBatch((batch) => this.#queue.push({ kind: "events", events: batch }));
  }

  /** The monitor was changed or deleted: its windows begin again. */
  changed(monitorUid: string): void {
    for (const w of this.#windows.get(monitorUid)?.values() ?? [])
      if (w.timer) this.clock.clearTimer(w.timer);
    this.#windows.delete(monitorUid);
  }

  /** Resolves once every event and window end told so far has been evaluated. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stop(): void {
    this.#queue.stop();
    for (const uid of [...this.#windows.keys()]) this.changed(uid);
    this.#unsubscribe();
    void this.#jsonata.close();
  }

  /** A window's end, or a run of events in the order they were stored. */
  async #step(pending: Work[]): Promise<void> {
    const work = pending.shift()!;
    if (work.kind === "close") return this.#closeDue(work.monitorUid, work.key, work.window);
    let batch = work.events;
    // The committed batches queued behind it go with it, as one run.
    while (pending[0]?.kind === "events") batch = batch.concat((pending.shift() as typeof work).events);
    return this.#events(batch);
  }

  /** Events in the order they were stored; one look at a project's monitors per batch. */
  async #events(batch: readonly EventRecord[]): Promise<void> {
    const byProject = new Map<string, EventRecord[]>();
    for (const event of batch) {
      const list = byProject.get(event.projectUid);
      if (list) list.push(event);
      else byProject.set(event.projectUid, [event]);
    }
    for (const [projectUid, events] of byProject) {
      const monitors = (await this.store.monitors.listMonitors(projectUid))
        .map((m) => ({ m, rules: monitorRules(m.settings) }))
        .filter(({ rules }) => !rules.disabled);
      if (monitors.length === 0) continue;
      for (const event of events) {
        if (this.#queue.stopped) return;
        await this.#event(event, monitors);
      }
    }
  }

  async #event(event: EventRecord, all: readonly { m: MonitorRecord; rules: MonitorRules }[]): Promise<void> {
    const monitors = all.filter(({ rules }) => takesFile(rules, event.file));
    if (monitors.length === 0) return;
    const doc = eventDocument(event);
    let fleets: string[] | undefined;
    for (const { m, rules } of monitors) {
      if (rules.fleets.length > 0) {
        fleets ??= await this.#fleetsOf(event, doc);
        if (!rules.fleets.some((f) => fleets!.includes(f))) continue;
      }
      const value = await this.#valueOf(rules, doc);
      if (value === undefined) continue;
      const trigger: Trigger = {
        value,
        eventUid: event.uid,
        deviceUid: event.deviceUid,
        at: this.clock.now(),
      };
      await this.#take(m, rules, rules.perDevice ? event.deviceUid : "*", trigger);
    }
  }

  async #fleetsOf(event: EventRecord, doc: JsonObject): Promise<string[]> {
    if (Array.isArray(doc.fleets) && doc.fleets.length > 0)
      return doc.fleets.filter((f) => typeof f === "string");
    return (await this.store.devices.getDevice(event.deviceUid))?.fleetUids ?? [];
  }

  /** The event's value: the selector's number (a count needs none); undefined when it gives none. */
  async #valueOf(rules: MonitorRules, doc: JsonObject): Promise<number | undefined> {
    if (rules.selector === "") return rules.condition === "count" ? 1 : undefined;
    try {
      const { value } = await this.#jsonata.evaluate(rules.selector, doc);
      return typeof value === "number" && Number.isFinite(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async #take(m: MonitorRecord, rules: MonitorRules, key: string, trigger: Trigger): Promise<void> {
    const state = stateOf(m);
    if (rules.windowMs === 0) {
      const met = meets(rules, trigger.value);
      if (met && !state.open[key]) await this.#fire(m, rules, state, key, trigger);
      else if (!met && state.open[key]) await this.#clear(m, rules, state, key, trigger.value);
      return;
    }
    const windows = this.#windows.get(m.uid) ?? new Map<string, Window>();
    this.#windows.set(m.uid, windows);
    let w = windows.get(key);
    if (w && trigger.at >= w.end) {
      if (w.timer) this.clock.clearTimer(w.timer);
      await this.#close(m, rules, state, key, w);
      w = windows.get(key);
    }
    if (!w || w.values.length === 0) {
      if (w?.timer) this.clock.clearTimer(w.timer);
      w = this.#open(m.uid, key, trigger.at, rules.windowMs);
    }
    w.values.push(trigger.value);
    if (!w.fired && meets(rules, aggregateOf(rules, w.values))) {
      w.fired = true;
      if (!state.open[key])
        await this.#fire(m, rules, state, key, { ...trigger, value: aggregateOf(rules, w.values)! });
    }
  }

  #open(monitorUid: string, key: string, start: number, windowMs: number): Window {
    const w: Window = { start, end: start + windowMs, values: [], fired: false, timer: undefined };
    w.timer = this.clock.setTimer(
      () => this.#queue.push({ kind: "close", monitorUid, key, window: w }),
      Math.max(0, w.end - this.clock.now()),
    );
    const windows = this.#windows.get(monitorUid) ?? new Map<string, Window>();
    windows.set(key, w);
    this.#windows.set(monitorUid, windows);
    return w;
  }

  async #closeDue(monitorUid: string, key: string, w: Window): Promise<void> {
    if (this.#windows.get(monitorUid)?.get(key) !== w) return;
    const m = await this.store.monitors.getMonitor(monitorUid);
    if (!m) return this.changed(monitorUid);
    await this.#close(m, monitorRules(m.settings), stateOf(m), key, w);
  }

  /** A window ended: an open alert clears unless the window met the condition; if it stays open, another window begins. */
  async #close(
    m: MonitorRecord,
    rules: MonitorRules,
    state: MonitorState,
    key: string,
    w: Window,
  ): Promise<void> {
    this.#windows.get(m.uid)?.delete(key);
    const value = aggregateOf(rules, w.values);
    if (state.open[key] && !meets(rules, value)) await this.#clear(m, rules, state, key, value, w.end);
    if (state.open[key] && !rules.disabled) this.#open(m.uid, key, w.end, rules.windowMs);
  }

  /** Whether notifications go out now: not silenced, and the cooldown since the last ones is over. */
  #routes(rules: MonitorRules, state: MonitorState, now: number): boolean {
    if (rules.silenced) return false;
    return state.last_routed_ms === undefined || now - state.last_routed_ms >= rules.cooldownMs;
  }

  async #notify(
    m: MonitorRecord,
    rules: MonitorRules,
    state: MonitorState,
    now: number,
  ): Promise<JsonObject[]> {
    if (!this.#routes(rules, state, now)) return [];
    const notifications = notificationsOf(m);
    if (notifications.length > 0) state.last_routed_ms = now;
    return notifications;
  }

  async #fire(
    m: MonitorRecord,
    rules: MonitorRules,
    state: MonitorState,
    key: string,
    trigger: Trigger,
  ): Promise<void> {
    const uid = `alert:${this.ids.uuid()}`;
    const notifications = await this.#notify(m, rules, state, trigger.at);
    const document = firedAlert(uid, m, rules, trigger, key !== "*", notifications);
    await this.store.monitors.addAlert({
      uid,
      projectUid: m.projectUid,
      monitorUid: m.uid,
      created: trigger.at,
      document,
    });
    state.open[key] = uid;
    await this.#save(m, state);
  }

  async #clear(
    m: MonitorRecord,
    rules: MonitorRules,
    state: MonitorState,
    key: string,
    value: number | undefined,
    at = this.clock.now(),
  ): Promise<void> {
    const alert = await this.store.monitors.getAlert(state.open[key]!);
    delete state.open[key];
    if (alert) {
      const notifications = await this.#notify(m, rules, state, at);
      await this.store.monitors.updateAlert(
        alert.uid,
        clearedAlert(alert.document, value, at, notifications),
      );
    }
    await this.#save(m, state);
  }

  async #save(m: MonitorRecord, state: MonitorState): Promise<void> {
    m.state = state as unknown as JsonObject;
    await this.store.monitors.setMonitorState(m.uid, m.state);
  }
}
