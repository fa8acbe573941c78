import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Clock } from "../../core/Clock.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { silentLog } from "../../firmware/ModuleLog.js";
import type { SessionOutcome } from "../../firmware/sync/syncTypes.js";
import type { Track } from "../../firmware/world/Track.js";
import { HubIds } from "../../hub/HubIds.js";
import { SqliteHubStore } from "../../hub/store/sqlite/SqliteHubStore.js";
import { assembleModule } from "../assembleModule.js";
import { FakeClock } from "../FakeClock.js";
import type { HubApi } from "../HubApi.js";
import type { HubConnection } from "../SimulatedModule.js";
import { startHub, type RunningHub } from "../startHub.js";
import { parseTrack } from "../tracks/parseTrack.js";
import { AcceleratedClock } from "./AcceleratedClock.js";
import { hashSeed } from "./bodies.js";
import { fleetCampaigns, hasCampaigns } from "./fleetCampaigns.js";
import { connectHubApi, type RemoteHubApi } from "../remoteHubApi.js";
import { fleetSeats, type Shard } from "./fleetIdentity.js";
import {
  compileGroup,
  FleetMember,
  positionIn,
  type CompiledGroup,
  type MemberContext,
} from "./fleetMember.js";
import {
  countSession,
  emptyCounts,
  summarize,
  timelineEntry,
  type FleetCounts,
  type FleetSession,
  type FleetSummary,
} from "./FleetStats.js";
import { WorkloadError, type Workload } from "./workload.js";

/** Where a fleet's hub is: one of its own in this process, its store a hub directory; or a hub elsewhere. */
export type FleetHub =
  | { readonly dir: string }
  | {
      readonly url: string;
      readonly ca?: string;
      readonly product?: string;
      /**
       * The project owner's API token on that hub: the workload's environment changes and firmware
       * campaign are made through its REST API (without one, a workload that has them is refused).
       */
      readonly token?: string;
    }
  | {
      /** A hub of the caller's on the fleet's `clock` (an InProcessHub's `connection()`, its API). */
      readonly connection: HubConnection;
      readonly api?: HubApi;
    };

export interface FleetOptions {
  /** Modules in the whole fleet (all shards). */
  readonly modules: number;
  readonly workload: Workload;
  /** Where a workload file's relative paths (tracks) are read from (default: the working directory). */
  readonly workloadDir?: string;
  readonly hub: FleetHub;
  /** This machine's part of the fleet (`--shard i/N`), and this worker's part of that. */
  readonly shard?: Shard;
  readonly part?: Shard;
  /**
   * How fast time runs: `max` (a fake clock, as fast as the work allows; a hub of its own only) or
   * a multiple of real time (default 1 with a hub elsewhere, `max` with its own).
   */
  readonly speed?: number | "max";
  /** Where the fleet's clock starts (epoch ms; default 2026-01-01 on a fake clock, now on a real one). */
  readonly start?: number;
  /** The fake clock to run on (with a hub of the caller's on that clock); default a new one. */
  readonly clock?: FakeClock;
  /** Devices (DeviceUIDs or places in the fleet) whose sessions are kept for `timeline`. */
  readonly timelines?: readonly string[];
  /** Each module's flash in bytes (default 1 MiB: a fleet's modules keep little). */
  readonly flashCapacity?: number;
  /**
   * With a hub of the fleet's own on a fake clock: the hub commits the sessions' writes of each
   * window of this many ms of the fleet's clock together, and answers each message once its
   * window is stored (default 5 s; 0: each transaction commits on its own, answered at once).
   */
  readonly commitWindowMs?: number;
}

/** How a run went so far: what `onProgress` is told after each step of the clock. */
export interface FleetProgress {
  readonly simulatedMs: number;
  readonly durationMs: number;
  readonly sessions: number;
  readonly failed: number;
}

const DEFAULT_FLASH = 1024 * 1024;
const DEFAULT_COMMIT_WINDOW_MS = 5000;
/** Modules that sync their last notes at once when a run ends. */
const DRAIN_BATCH = 16;

/**
 * Many modules on one clock, each put together by the one rig assembly (`assembleModule`), running
 * a workload against one hub: a hub of the fleet's own in this process, its store a normal hub
 * directory (`cardsim hub --dir` opens it afterwards), on a fake clock as fast as the work allows
 * or paced at a multiple of real time; or a hub elsewhere over HTTPS, on an accelerated real clock.
 * Identities come from the modules' places in the fleet, so shards never collide.
 */
export class Fleet {
  readonly counts: FleetCounts = emptyCounts();
  readonly #members: FleetMember[] = [];
  readonly #timelines = new Map<string, FleetSession[]>();
  readonly #context: MemberContext;
  #stopFeed: (() => void) | undefined;
  /** Sync messages the hub in this process is handling now (it may wait on real I/O). */
  #inFlight = 0;
  /** The REST API of a hub elsewhere (given its token), for the workload's campaigns. */
  #remote: RemoteHubApi | undefined;

  private constructor(
    readonly options: FleetOptions,
    readonly clock: Clock,
    /** The fleet's own hub (absent with a hub elsewhere). */
    readonly hub: RunningHub | undefined,
  ) {
    this.#context = {
      clock,
      seed: hashSeed(options.workload.seed ?? "fleet"),
      counts: this.counts,
      end: Infinity,
    };
  }

  static async start(options: FleetOptions): Promise<Fleet> {
    const remote = "url" in options.hub;
    const speed = options.speed ?? (remote ? 1 : "max");
    if (remote && speed === "max")
      throw new Error(
        "speed max needs the fleet's own hub: with a hub elsewhere give a multiple, such as 60x",
      );
    const clock = remote
      ? new AcceleratedClock(speed as number, options.start)
      : (options.clock ?? new FakeClock(options.start));
    const hub =
      "dir" in options.hub ? await startOwnHub(options.hub.dir, clock, options.workload) : undefined;
    const fleet = new Fleet(options, clock, hub);
    try {
      fleet.#remote = await remoteApiFor(options);
      await fleet.#boot();
    } catch (error) {
      await fleet.close();
      throw error;
    }
    return fleet;
  }

  /** The modules of this fleet (or of this shard and worker), in place order. */
  get members(): readonly FleetMember[] {
    return this.#members;
  }

  async #boot(): Promise<void> {
    const { options } = this;
    const { workload } = options;
    const tracks = await readTracks(workload, options.workloadDir);
    const groups = workload.groups.map((g, i) => compileGroup(g, i, tracks[i]));
    const wanted = new Set(options.timelines ?? []);
    for (const seat of fleetSeats(workload, options.modules, options.shard, options.part)) {
      const member = await this.#bootMember(seat.place, seat.deviceUid, groups[seat.group]!, seat.serial);
      if (wanted.has(seat.deviceUid) || wanted.has(String(seat.place)))
        this.#timelines.set(seat.deviceUid, []);
      this.#members.push(member);
    }
    this.counts.modules = this.#members.length;
    if (this.hub) {
      const devices = new Set(this.#members.map((m) => m.deviceUid));
      this.#stopFeed = this.hub.services.events.subscribe((event) => {
        if (!devices.has(event.deviceUid)) return;
        this.counts.events++;
        if (!event.file.startsWith("_")) this.counts.noteEvents++;
      });
    }
  }

  async #bootMember(
    place: number,
    deviceUid: string,
    group: CompiledGroup,
    serial: string,
  ): Promise<FleetMember> {
    const { load } = group;
    const position = positionIn(load, this.#context.seed, place);
    // The hub link times the member's sessions; the member is made once its rig is.
    const made: { member?: FleetMember } = {};
    const rig = await assembleModule({
      clock: this.clock,
      seed: `${this.options.workload.seed ?? "fleet"}/${place}`,
      deviceUid,
      timeKnown: true,
      variant: load.variant ?? "cell",
      flash: { memory: { capacity: this.options.flashCapacity ?? DEFAULT_FLASH } },
      // Nobody reads a member's log (its sessions and errors are counted from their outcomes and
      // replies): the default, lines kept in memory, grew by a line or more every session.
      log: silentLog,
      hub: this.#connection(() => made.member),
      ...(load.supply ? { supply: load.supply } : {}),
      ...(group.discharge ? { discharge: group.discharge } : {}),
      ...(position || group.track
        ? { world: { ...(position ? { position } : {}), ...(group.track ? { track: group.track } : {}) } }
        : {}),
    });
    const member = new FleetMember(place, deviceUid, serial, rig, group);
    made.member = member;
    rig.simulated.module.sync.onSession((outcome) => this.#sessionEnded(member, outcome));
    return member;
  }

  /** The module's way to the hub; in process, each message of a session is timed on the wall clock. */
  #connection(member: () => FleetMember | undefined): HubConnection {
    const hub = this.options.hub;
    if ("url" in hub)
      return {
        url: hub.url,
        ...(hub.product ? { product: hub.product } : {}),
        ...(hub.ca ? { ca: hub.ca } : {}),
      };
    const base: HubConnection =
      "connection" in hub
        ? hub.connection
        : { product: this.hub!.credentials.product_uid, inProcess: this.hub!.services.sync };
    if (!("inProcess" in base)) return base;
    const handler = base.inProcess;
    return {
      ...base,
      inProcess: {
        handle: (request, transport) => {
          const m = member();
          if (m && m.sessionWallStart < 0) m.sessionWallStart = performance.now();
          this.#inFlight++;
          return handler.handle(request, transport).finally(() => this.#inFlight--);
        },
      },
    };
  }

  #sessionEnded(member: FleetMember, outcome: SessionOutcome): void {
    let wallMs: number | undefined;
    if (this.clock instanceof AcceleratedClock) wallMs = (outcome.ended - outcome.started) / this.clock.speed;
    else if (member.sessionWallStart >= 0) wallMs = performance.now() - member.sessionWallStart;
    member.sessionWallStart = -1;
    countSession(this.counts, outcome, wallMs);
    this.#timelines.get(member.deviceUid)?.push(timelineEntry(member.deviceUid, outcome));
  }

  /**
   * Runs the workload for `durationMs` of the fleet's clock, then has every module sync what it
   * still holds, and sums up. `onProgress` is told after each step of the clock.
   */
  async run(durationMs: number, onProgress?: (progress: FleetProgress) => void): Promise<FleetSummary> {
    const wallStart = performance.now();
    const startedAt = this.clock.now();
    this.#context.end = startedAt + durationMs;
    for (const member of this.#members) await member.start(this.#context);
    const api =
      this.hub ?? ("api" in this.options.hub ? this.options.hub.api : undefined) ?? this.#remote?.api;
    const targets = this.#members.map((m) => ({
      place: m.place,
      deviceUid: m.deviceUid,
      load: m.group.load,
    }));
    const campaigns = api ? fleetCampaigns(api, this.clock, targets, this.counts) : undefined;
    const progress = (simulatedMs: number) =>
      onProgress?.({
        simulatedMs,
        durationMs,
        sessions: this.counts.ok + this.counts.failed,
        failed: this.counts.failed,
      });
    try {
      this.#groupCommits(true);
      await this.#drive(durationMs, progress, () => campaigns?.settled());
    } finally {
      this.#groupCommits(false);
      campaigns?.stop();
      for (const member of this.#members) member.stop(this.#context);
    }
    await this.#drain();
    await this.hub?.settle();
    this.counts.penaltyBoxes = this.#members.filter((m) => m.module.schedule.boxed() !== undefined).length;
    return summarize(this.counts, {
      simulatedMs: durationMs,
      wallMs: performance.now() - wallStart,
      eventsCounted: this.hub !== undefined,
      rssBytes: process.memoryUsage.rss(),
    });
  }

  /** Moves the clock through the run: a fake one step by step (paced at a multiple), a real one waited for. */
  async #drive(
    durationMs: number,
    progress: (simulatedMs: number) => void,
    settled: () => Promise<void> | undefined,
  ): Promise<void> {
    const clock = this.clock;
    const speed = this.options.speed ?? "max";
    if (clock instanceof AcceleratedClock) {
      const endWall = durationMs / clock.speed;
      while (clock.wallElapsed() < endWall) {
        await new Promise((done) => setTimeout(done, Math.min(250, endWall - clock.wallElapsed())));
        progress(Math.min(durationMs, clock.wallElapsed() * clock.speed));
      }
      return;
    }
    const fake = clock as FakeClock;
    const step = speed === "max" ? 60_000 : Math.min(60_000, Math.max(100, 100 * speed));
    const wallStart = performance.now();
    for (let done = 0; done < durationMs;) {
      const ms = Math.min(step, durationMs - done);
      await fake.advance(ms);
      // What waits on real I/O (the hub's API, a lookup) ends before the clock moves on, and waits
      // for no group commit meanwhile (the clock that ends the group's window stands still).
      this.#groupCommits(false);
      while (this.#inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
      await settled();
      this.#groupCommits(true);
      done += ms;
      if (speed !== "max") {
        const behind = done / speed - (performance.now() - wallStart);
        if (behind > 0) await new Promise((resolve) => setTimeout(resolve, behind));
      }
      progress(done);
    }
  }

  /** Turns the fleet's own hub's group commits on (on a fake clock) or off (committing the group open). */
  #groupCommits(on: boolean): void {
    const store = this.hub?.store;
    const windowMs = this.options.commitWindowMs ?? DEFAULT_COMMIT_WINDOW_MS;
    if (!(store instanceof SqliteHubStore) || !(this.clock instanceof FakeClock) || windowMs <= 0) return;
    store.groupCommits(on ? { clock: this.clock, windowMs } : undefined);
  }

  /**
   * Every module syncs what it still holds (the run's last notes), a batch of modules at a time
   * (so that the sessions' latencies are those of a fleet at work, not of a queue), and the fleet
   * waits for it. On a fake clock what a batch's sessions store is committed together (one group
   * commit a step, answered at once), and the clock moves on only while a session still waits on
   * it (so that the modules' own schedules add no sessions after the run).
   */
  async #drain(): Promise<void> {
    const fake = this.clock instanceof FakeClock ? this.clock : undefined;
    // On a real clock the modules' schedules run on while the fleet waits: all of them at once.
    const size = fake ? DRAIN_BATCH : this.#members.length;
    for (let i = 0; i < this.#members.length; i += size) {
      const batch = this.#members.slice(i, i + size).map((m) => m.module.sync);
      this.#groupCommits(true);
      for (const sync of batch) sync.request({ why: "explicit" });
      while (fake && batch.some((sync) => sync.status().running)) {
        // The batch's messages reach the hub; what they stored is committed and answered at once.
        await new Promise((resolve) => setImmediate(resolve));
        this.#groupCommits(false);
        this.#groupCommits(true);
        await new Promise((resolve) => setImmediate(resolve));
        // A session may wait on the clock (the radio's latency): move it on.
        if (batch.some((sync) => sync.status().running)) await fake.advance(1000);
      }
      this.#groupCommits(false);
      for (const sync of batch) await sync.idle();
    }
  }

  /** The sessions of a device asked for in `timelines`, in order (undefined: not asked for). */
  timeline(device: string): readonly FleetSession[] | undefined {
    const member = this.#members.find((m) => m.deviceUid === device || String(m.place) === device);
    return member ? this.#timelines.get(member.deviceUid) : undefined;
  }

  /** Every timeline kept, by DeviceUID. */
  timelines(): ReadonlyMap<string, readonly FleetSession[]> {
    return this.#timelines;
  }

  /** Stops the modules and the fleet's own hub (its directory stays). */
  async close(): Promise<void> {
    this.#stopFeed?.();
    for (const member of this.#members.splice(0)) await member.rig.close();
    await this.hub?.close();
    this.#remote?.close();
  }
}

/**
 * The REST API of the hub elsewhere a workload's campaigns need (none when it has none, or when
 * the hub is the fleet's own or the caller's); a workload with campaigns and no token is refused.
 */
export async function remoteApiFor(
  options: Pick<FleetOptions, "hub" | "workload">,
): Promise<RemoteHubApi | undefined> {
  const hub = options.hub;
  if (!("url" in hub) || !hasCampaigns(options.workload)) return undefined;
  if (hub.token === undefined)
    throw new WorkloadError(
      "the workload's environment changes and firmware campaign are made through the hub's API: give the project owner's token (--hub-token TOKEN, or --dir of the hub whose credentials.json holds it)",
    );
  return connectHubApi({
    url: hub.url,
    token: hub.token,
    ...(hub.ca ? { ca: hub.ca } : {}),
    ...(hub.product ? { product: hub.product } : {}),
  });
}

/** The fleet's own hub: a hub directory on the fleet's clock, its HTTP API on a free loopback port. */
function startOwnHub(dir: string, clock: Clock, workload: Workload): Promise<RunningHub> {
  return startHub({
    dir,
    clock,
    listen: "127.0.0.1:0",
    tlsListen: false,
    rateLimits: false,
    helloLimits: false,
    ids: new HubIds(new SeededRandom(`${workload.seed ?? "fleet"}/hub`)),
  });
}

/** Each group's track, read once and shared by its modules. */
async function readTracks(workload: Workload, dir = "."): Promise<(Track | undefined)[]> {
  return Promise.all(
    workload.groups.map(async (group, i) => {
      const path = group.location?.track;
      if (!path) return undefined;
      let text: string;
      try {
        text = await readFile(resolve(dir, path), "utf8");
      } catch (error) {
        throw new WorkloadError(
          `groups[${i}].location.track: cannot read ${path}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      try {
        return parseTrack(text);
      } catch (error) {
        throw new WorkloadError(`groups[${i}].location.track: ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }),
  );
}
