import type { Clock, TimerHandle } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { destination, type GeoPoint } from "../../firmware/world/geo.js";
import type { Track } from "../../firmware/world/Track.js";
import type { DischargeCurve } from "../DischargeCurve.js";
import { parseLinearDischarge } from "../DischargeCurve.js";
import type { ModuleRig } from "../assembleModule.js";
import { compileBody, type BodyGenerator } from "./bodies.js";
import { countError, errorKind, type FleetCounts } from "./FleetStats.js";
import { unitFor } from "./fleetIdentity.js";
import { durationMs, type GroupLoad } from "./workload.js";

/** A workload group made ready to run: times in ms, bodies compiled, its track read. */
export interface CompiledGroup {
  readonly load: GroupLoad;
  readonly notefiles: readonly {
    readonly file: string;
    readonly everyMs: number;
    readonly body: BodyGenerator;
    readonly template?: JsonObject;
    readonly sync: boolean;
  }[];
  readonly outages: readonly {
    readonly what: "registration" | "hub";
    readonly atMs: number;
    readonly forMs: number;
    readonly share: number;
  }[];
  readonly discharge?: DischargeCurve;
  readonly track?: Track;
}

export function compileGroup(load: GroupLoad, index: number, track: Track | undefined): CompiledGroup {
  return {
    load,
    notefiles: (load.notefiles ?? []).map((n, i) => ({
      file: n.file,
      everyMs: durationMs(n.every),
      body: compileBody(n.body, n.bytes, `groups[${index}].notefiles[${i}].body`),
      ...(n.template ? { template: n.template } : {}),
      sync: n.sync === true,
    })),
    outages: (load.outages ?? []).map((o) => ({
      what: o.kind === "network" ? "registration" : "hub",
      atMs: durationMs(o.at),
      forMs: durationMs(o.for),
      share: o.share ?? 1,
    })),
    ...(load.discharge ? { discharge: parseLinearDischarge(load.discharge) } : {}),
    ...(track ? { track } : {}),
  };
}

/** Where the module at `place` is: a seeded point in the group's area (uniform over the circle). */
export function positionIn(group: GroupLoad, seed: number, place: number): GeoPoint | undefined {
  const area = group.location?.area;
  if (!area) return undefined;
  const meters = area.radius_km * 1000 * Math.sqrt(unitFor(seed, place, "radius"));
  return destination({ lat: area.lat, lon: area.lon }, 360 * unitFor(seed, place, "bearing"), meters);
}

/** What every member of a fleet shares: the clock, the seed, the counts, when the run ends. */
export interface MemberContext {
  readonly clock: Clock;
  readonly seed: number;
  readonly counts: FleetCounts;
  /** Clock ms after which no note is added. */
  end: number;
}

/**
 * One module of a fleet and the workload it runs: its schedule set at a seeded moment of the
 * first period (so that the fleet's sessions spread out), a note to each notefile every period
 * from a seeded offset, and the outages its share draws. Little state: a fleet holds thousands.
 */
export class FleetMember {
  /** Wall ms (performance.now) of the first message of the session under way; -1: none. */
  sessionWallStart = -1;
  readonly #timers: TimerHandle[] = [];

  constructor(
    readonly place: number,
    readonly deviceUid: string,
    readonly serial: string,
    readonly rig: ModuleRig,
    readonly group: CompiledGroup,
  ) {}

  get module() {
    return this.rig.simulated.module;
  }

  /** Starts the workload on the module: templates now, the schedule and notes at their offsets. */
  async start(context: MemberContext): Promise<void> {
    const { clock, seed } = context;
    for (const n of this.group.notefiles)
      if (n.template) await this.#request(context, { req: "note.template", file: n.file, body: n.template });
    const sync = this.group.load.sync;
    const firstPeriodMs = (sync?.outbound ?? 60) * 60_000;
    const setup: JsonObject = { req: "hub.set", sn: this.serial };
    if (sync) {
      setup["mode"] = sync.mode;
      if (sync.outbound !== undefined) setup["outbound"] = sync.outbound;
      if (sync.inbound !== undefined) setup["inbound"] = sync.inbound;
    }
    this.#after(context, Math.floor(unitFor(seed, this.place, "sync") * firstPeriodMs), () =>
      this.#request(context, setup),
    );
    for (const [i, n] of this.group.notefiles.entries()) {
      const offset = 1 + Math.floor(unitFor(seed, this.place, `note${i}`) * (n.everyMs - 1));
      let count = 0;
      const add = () => {
        if (clock.now() >= context.end) return;
        this.#timers[slot] = clock.setTimer(add, n.everyMs);
        const body = n.body(seed, this.place, count++);
        context.counts.notesAdded++;
        void this.#request(context, {
          req: "note.add",
          file: n.file,
          body,
          ...(n.sync ? { sync: true } : {}),
        });
      };
      const slot = this.#timers.push(clock.setTimer(add, offset)) - 1;
    }
    for (const [i, o] of this.group.outages.entries()) {
      if (unitFor(seed, this.place, `outage${i}`) >= o.share) continue;
      this.#after(context, o.atMs, () => this.rig.radio.outage(o.what, o.forMs));
    }
  }

  /** Stops adding notes and the workload's timers (the module's own schedule runs on). */
  stop(context: MemberContext): void {
    for (const timer of this.#timers.splice(0)) context.clock.clearTimer(timer);
  }

  #after(context: MemberContext, ms: number, work: () => unknown): void {
    this.#timers.push(context.clock.setTimer(() => void work(), ms));
  }

  async #request(context: MemberContext, request: JsonObject): Promise<void> {
    try {
      const reply = await this.rig.simulated.module.request(request);
      const err = reply?.["err"];
      if (typeof err === "string") countError(context.counts, errorKind(err));
    } catch (error) {
      countError(context.counts, errorKind((error as Error)?.message));
    }
  }
}
