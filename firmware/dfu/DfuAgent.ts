import { decodeBase64 } from "../../core/base64.js";
import { sleep } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { Md5, md5Hex } from "../../core/md5.js";
import {
  DFU_ERRORS,
  DFU_MAX_ERRORS,
  DFU_TARGETS,
  MAX_READ_BYTES,
  SYNC_ERRORS,
  type DfuTarget,
  type FirmwareImage,
  type FirmwareReply,
  type ReadReply,
} from "../../protocol/messages.js";
import { HUB_CONFIG_KEY, effectiveMode, hubSettings } from "../config/HubConfig.js";
import { storeRecord } from "../config/compactRecord.js";
import { Environment } from "../env/Environment.js";
import { CARD_KEYS, type TimeZone } from "../config/CardSettings.js";
import { INSTALLED_FIRMWARE_KEY, releaseName } from "../FirmwareVersion.js";
import type { ModuleCore } from "../ModuleCore.js";
import { supplyState } from "../power/VoltagePolicy.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import { SensorTimer } from "../sensors/SensorTimer.js";
import { SimError } from "../SimError.js";
import { SyncFailure, type OpenSession, type SyncEngine } from "../sync/SyncEngine.js";
import {
  DFU_KEYS,
  reportedState,
  saveTarget,
  targetRecord,
  type DfuMode,
  type DfuSwitches,
  type OutboardSettings,
  type TargetRecord,
} from "./DfuRecords.js";
import { inDfuPeriod, parseDfuPeriod } from "./dfuPeriod.js";
import { OUTBOARD_CLASSES, unwiredHostLines, type HostDfuLines } from "./HostDfuLines.js";
import { MODULE_IMAGE_HEADER_BYTES, moduleImageRelease } from "./ModuleFirmwareImage.js";

/** What the DFU agent needs of the module besides its core. */
export interface DfuHost extends ModuleCore {
  readonly sync: SyncEngine;
  /** Restarts the module on its flash (after it installed its own firmware). */
  restart(): Promise<void>;
}

export interface DfuOptions {
  /** Bytes of images one session downloads at most, so notes keep flowing (default 512 KiB). */
  readonly sessionBytes?: number;
  /** Bytes each `read` asks for (default 64 KiB, at most MAX_READ_BYTES). */
  readonly readBytes?: number;
  /** The host's RESET and BOOT lines for outboard updates (none wired by default). */
  readonly hostLines?: HostDfuLines;
  /** The serial rate an outboard update sends the image at (default 115200). */
  readonly outboardBaud?: number;
}

/** Without a `dfu.get` (or a `hub.set mode:dfu`) for this long, the module leaves DFU mode. */
export const DFU_MODE_IDLE_MS = 15 * 60_000;
export const DEFAULT_DFU_SESSION_BYTES = 512 * 1024;
export const DEFAULT_DFU_READ_BYTES = 64 * 1024;
/** Re-reads of a chunk that arrived damaged before the attempt counts as an error. */
const CHUNK_RETRIES = 2;
/** Bytes an outboard update sends at a time. */
const OUTBOARD_BLOCK = 4096;
/** How long the module holds the host in reset, and lets its bootloader start. */
const RESET_PULSE_MS = 10;
const BOOTLOADER_START_MS = 100;

/** The large objects (firmware/storage/LargeObjectStore) the images live in. */
export const IMAGE_OBJECT: Readonly<Record<DfuTarget, string>> = { user: "dfu-user", card: "dfu-card" };

/** Modes in which the module holds (part of) an image. */
const HOLDS_IMAGE = new Set<DfuMode>(["downloading", "ready", "outboard-ready"]);

/** One at a time: the image files are written by the download and read or deleted by requests. */
class ImageLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }
}

/** What a session should do with a target after hearing what the hub wants. */
interface Plan {
  readonly drop: boolean;
  readonly download: boolean;
}
const NOTHING: Plan = { drop: false, download: false };

const progress = (read: number, length: number) =>
  `downloading: ${length > 0 ? Math.floor((read * 100) / length) : 100}% (${read} of ${length} bytes)`;

/** A record's state without its image: what is kept when one update ends and another begins. */
function bookkeeping(r: TargetRecord): TargetRecord {
  const keep: Record<string, unknown> = { mode: "idle" };
  for (const key of ["updates", "seq", "rev", "reported"] as const)
    if (r[key] !== undefined) keep[key] = r[key];
  return keep as unknown as TargetRecord;
}

/**
 * The module's firmware updates (docs/dfu.md): a step of every sync session downloads the images
 * the hub wants (`firmware`, `read`), in chunks that are durable in flash before the flash record
 * says so, resumable across sessions, restarts and power losses, verified by MD5; progress goes to
 * the hub (`dfu`). A host image waits for the host (`dfu.get` in DFU mode, `dfu.status stop`) or
 * is written to the host by an outboard update (`card.dfu`); a module image is installed, and the
 * module restarts into it. RAM only: every restart makes a new agent from what the flash kept.
 */
export class DfuAgent {
  readonly #host: DfuHost;
  readonly #sessionBytes: number;
  readonly #readBytes: number;
  readonly #lines: HostDfuLines;
  readonly #baud: number;
  readonly #lock = new ImageLock();
  readonly #dfuTimer: SensorTimer;
  readonly #outboardTimer: SensorTimer;
  readonly #unsubscribe: (() => void)[] = [];
  #disposed = false;
  #restartAfterSession = false;
  #outboard: Promise<void> | undefined;

  constructor(host: DfuHost, options: DfuOptions = {}) {
    this.#host = host;
    this.#sessionBytes = Math.max(1, options.sessionBytes ?? DEFAULT_DFU_SESSION_BYTES);
    this.#readBytes = Math.min(MAX_READ_BYTES, Math.max(1, options.readBytes ?? DEFAULT_DFU_READ_BYTES));
    this.#lines = options.hostLines ?? unwiredHostLines;
    this.#baud = options.outboardBaud ?? 115_200;
    this.#dfuTimer = new SensorTimer(host.clock);
    this.#outboardTimer = new SensorTimer(host.clock);
  }

  /** Joins the sync engine's sessions and picks up what the flash says was under way. */
  start(): void {
    const sync = this.#host.sync;
    this.#unsubscribe.push(sync.addStep({ name: "dfu", run: (session) => this.#step(session) }));
    this.#unsubscribe.push(sync.onSession(() => this.#afterSession()));
    this.noticeMode();
    this.#background("DFU start", () => this.#resume());
  }

  dispose(): void {
    this.#disposed = true;
    this.#dfuTimer.clear();
    this.#outboardTimer.clear();
    for (const off of this.#unsubscribe.splice(0)) off();
  }

  // --- what requests use (in their writer turn) -----------------------------------------------

  record(target: DfuTarget): TargetRecord {
    return targetRecord(this.#host.notebox, target);
  }

  /** `dfu.status`'s reply for a target. */
  status(target: DfuTarget): JsonObject {
    const r = this.record(target);
    const off = this.#switches()[target]?.off === true;
    const card = this.record("card");
    const none = !this.#host.images && r.mode === "idle";
    return {
      mode: r.mode,
      status: none
        ? "this module has no flash set aside for firmware images"
        : (r.status ?? defaultStatus(r.mode)),
      ...(r.image && r.mode !== "idle" ? { body: { ...r.image } } : {}),
      ...(off ? { off: true } : { on: true }),
      pending: r.mode === "downloading" || card.mode === "downloading" || card.mode === "ready",
    };
  }

  /** `dfu.status on/off/vvalue`: whether downloads for a target may run. */
  setSwitch(target: DfuTarget, change: { on?: boolean; off?: boolean; vvalue?: string | null }): void {
    const switches = this.#switches();
    const next = { ...switches[target] };
    if (change.on) delete next.off;
    if (change.off) next.off = true;
    if (change.vvalue === null) delete next.vvalue;
    else if (change.vvalue !== undefined) next.vvalue = change.vvalue;
    storeRecord(this.#host.notebox, DFU_KEYS.switches, { ...switches, [target]: compact(next) });
  }

  /**
   * `dfu.status stop`: the target's update ends and its image is deleted. With `err` it ends in
   * error (the hub marks it failed); a ready image the host was given ends completed; anything
   * else ends idle (the hub marks it cancelled). `status` is the text the hub's history shows.
   */
  async stop(target: DfuTarget, options: { status?: string; err?: string }): Promise<void> {
    const box = this.#host.notebox;
    const now = this.#host.noteTime();
    const r = this.record(target);
    const base = { ...r, read: undefined, taken: undefined, flashing: undefined };
    if (options.err !== undefined) {
      const why = options.err || "the host stopped the update with an error";
      saveTarget(box, target, { ...base, mode: "error", errors: DFU_MAX_ERRORS, status: why }, now, {
        mode: "error",
        status: why,
      });
    } else if (r.mode === "ready" || r.mode === "outboard-ready") {
      const why = options.status || "the host installed the update";
      saveTarget(box, target, { ...base, mode: "completed", status: why }, now, {
        mode: "completed",
        status: why,
      });
    } else if (r.mode === "downloading") {
      const why = options.status || "the host stopped the update";
      saveTarget(box, target, { ...base, mode: "idle", stopped: true, status: why }, now, {
        mode: "stopped",
        status: why,
      });
    } else if (r.mode !== "idle" || options.status) {
      const why = options.status || "no firmware update";
      saveTarget(
        box,
        target,
        { ...bookkeeping(r), ...(r.image ? { image: r.image, stopped: true } : {}), status: why },
        now,
        options.status ? { mode: "stopped", status: why } : undefined,
      );
    }
    await this.#dropImage(target);
  }

  /** Whether `dfu.get` may read: `off` (not in DFU mode), `starting` (a session is still ending), `active`. */
  dfuMode(): "off" | "starting" | "active" {
    if (hubSettings(this.#host).mode !== "dfu") return "off";
    const sync = this.#host.sync;
    return sync.status().running || sync.isOnline ? "starting" : "active";
  }

  /** A `dfu.get` read: `length` bytes of the ready host image from `offset`. */
  async readForHost(offset: number, length: number): Promise<Uint8Array> {
    const r = this.record("user");
    if (!r.taken) saveTarget(this.#host.notebox, "user", { ...r, taken: true }, this.#host.noteTime());
    this.touchDfuMode();
    const images = this.#host.images!;
    return this.#lock.run(() => images.read(IMAGE_OBJECT.user, offset, length));
  }

  /** After every request: DFU mode ends by itself after a quiet spell. */
  noticeMode(): void {
    if (this.#disposed) return;
    if (hubSettings(this.#host).mode === "dfu") {
      if (!this.#dfuTimer.pending) this.touchDfuMode();
    } else this.#dfuTimer.clear();
  }

  /** The host is working in DFU mode: the quiet spell starts again. */
  touchDfuMode(): void {
    this.#dfuTimer.set(DFU_MODE_IDLE_MS, () =>
      this.#background("leaving DFU mode", () => this.#host.exclusive(() => this.#leaveDfuMode())),
    );
  }

  outboardSettings(): OutboardSettings {
    return this.#host.notebox.config<OutboardSettings>(DFU_KEYS.outboard) ?? {};
  }

  /** `card.dfu` changed its settings: an update waiting for the host may start. */
  setOutboard(settings: OutboardSettings): void {
    storeRecord(this.#host.notebox, DFU_KEYS.outboard, settings);
    this.#kickOutboard();
  }

  /** Outboard updates are configured, on, and not paused. */
  outboardEnabled(): boolean {
    const o = this.outboardSettings();
    return (
      o.name !== undefined &&
      o.on === true &&
      !(o.offUntil !== undefined && o.offUntil > this.#host.clock.now())
    );
  }

  // --- sessions -------------------------------------------------------------------------------

  async #step(session: OpenSession): Promise<void> {
    try {
      await this.#session(session);
    } catch (error) {
      // A hub that does not take firmware messages (an older one) refuses the first of them:
      // the session goes on without updates.
      if (error instanceof SyncFailure && error.message.includes(`{${SYNC_ERRORS.badRequest}}`)) {
        this.#host.log.warn("the hub refused a firmware message: no updates this session", {
          error: error.message,
        });
        return;
      }
      throw error;
    }
  }

  async #session(session: OpenSession): Promise<void> {
    const host = this.#host;
    if (!host.images || this.#disposed) return;
    const mode = effectiveMode(hubSettings(host), host.voltage.now().usb);
    // Updates are unavailable in minimum and off mode (and DFU mode never syncs).
    if (mode === "minimum" || mode === "off" || mode === "dfu") return;
    // What the host did since the last session reaches the hub before the hub is asked again.
    for (const target of DFU_TARGETS) await this.#report(session, target);
    const offer = await session.exchange<FirmwareReply>({ type: "firmware" });
    let budget = this.#sessionBytes;
    for (const target of DFU_TARGETS) {
      const plan = await host.exclusive(() => this.#consider(target, offer[target]));
      if (plan.drop) await this.#dropImage(target);
      if (plan.download && budget > 0) budget -= await this.#download(session, target, budget);
    }
    for (const target of DFU_TARGETS) await this.#report(session, target);
    this.#kickOutboard();
  }

  /** Compares what the hub wants with what the module holds; returns what to do. */
  #consider(target: DfuTarget, image: FirmwareImage | undefined): Plan {
    const box = this.#host.notebox;
    const now = this.#host.noteTime();
    const r = this.record(target);
    if (!image) {
      const cancellable = r.mode === "downloading" || r.mode === "ready" || r.mode === "outboard-ready";
      if (!r.image || !cancellable || r.flashing) return NOTHING;
      const why = "the hub cancelled the update";
      saveTarget(box, target, { ...bookkeeping(r), image: r.image, status: why }, now, {
        mode: "cancelled",
        status: why,
      });
      return { drop: true, download: false };
    }
    const same = r.image?.name === image.name && r.image.md5 === image.md5;
    if (same) {
      switch (r.mode) {
        case "downloading":
          return { drop: false, download: true };
        case "error": {
          if ((r.errors ?? 0) >= DFU_MAX_ERRORS) return NOTHING;
          const why = `downloading again after an error (attempt ${(r.errors ?? 0) + 1})`;
          saveTarget(box, target, { ...r, mode: "downloading", read: 0, status: why }, now, {
            mode: "downloading",
            status: why,
          });
          return { drop: true, download: true };
        }
        case "idle":
          if (r.stopped) return NOTHING;
          break;
        default:
          return NOTHING;
      }
    }
    const why = `downloading ${image.name} (${image.length} bytes)`;
    saveTarget(
      box,
      target,
      {
        ...bookkeeping(r),
        mode: "downloading",
        image,
        read: 0,
        began: now,
        errors: 0,
        status: progress(0, image.length),
        ...(image.version ? { version: image.version } : {}),
      },
      now,
      { mode: "downloading", status: why },
    );
    return { drop: true, download: true };
  }

  /** Why downloads for a target may not run now, or undefined. */
  #blocked(target: DfuTarget): string | undefined {
    const host = this.#host;
    const sw = this.#switches()[target];
    if (sw?.off) return "downloads are off (dfu.status off)";
    if (sw?.vvalue) {
      const parsed = VoltageVariable.parse(sw.vvalue, "integer");
      const state = supplyState(host);
      if (parsed instanceof VoltageVariable && parsed.valueFor(state) === 0)
        return `downloads are off on ${state} supply (vvalue)`;
    }
    const period = new Environment(host.notebox).get("_dfu_period")?.text;
    if (period) {
      const parsed = parseDfuPeriod(period);
      const time = host.time();
      if (parsed && time !== undefined) {
        const minutes = host.notebox.config<TimeZone>(CARD_KEYS.timeZone)?.minutes ?? 0;
        if (!inDfuPeriod(parsed, time + minutes * 60)) return "outside the _dfu_period window";
      } else if (!parsed) host.log.warn("_dfu_period is not DDDDDDD,HH,N: ignored", { value: period });
    }
    return undefined;
  }

  /** Downloads what it may of a target's image this session; returns the bytes it spent. */
  async #download(session: OpenSession, target: DfuTarget, budget: number): Promise<number> {
    const host = this.#host;
    const box = host.notebox;
    const images = host.images!;
    const object = IMAGE_OBJECT[target];
    const r = await host.exclusive(() => this.record(target));
    const image = r.image;
    if (r.mode !== "downloading" || !image) return 0;
    const blocked = await host.exclusive(() => this.#waiting(target, image));
    if (blocked) return 0;
    let read: number;
    try {
      // What the record says is durable is what counts: a tail written after it is cut off.
      read = await this.#lock.run(async () => {
        const known = r.read ?? 0;
        const info = await images.info(object);
        if (!info || known === 0) {
          await images.create(object, image.length);
          return 0;
        }
        if (info.size > known) await images.truncate(object, known);
        images.reserve(object, image.length);
        return Math.min(known, info.size);
      });
    } catch (error) {
      if (error instanceof SimError && error.has("file-storage-full")) {
        await this.#fail(target, image, `no room in flash for the ${image.length}-byte image`, true);
        return 0;
      }
      throw error;
    }
    if (read !== (r.read ?? 0)) {
      await host.exclusive(() => {
        const now = this.record(target);
        if (now.image?.name === image.name) saveTarget(box, target, { ...now, read }, host.noteTime());
      });
    }
    let spent = 0;
    let damaged = 0;
    while (!this.#disposed && read < image.length && spent < budget) {
      const n = Math.min(this.#readBytes, image.length - read, budget - spent);
      let reply: ReadReply;
      try {
        reply = await session.exchange<ReadReply>({
          type: "read",
          target,
          name: image.name,
          offset: read,
          length: n,
        });
      } catch (error) {
        if (error instanceof SyncFailure && error.message.includes(`{${DFU_ERRORS.noImage}}`)) {
          await this.#fail(target, image, "the hub no longer has the image", true);
          return spent;
        }
        throw error;
      }
      const data = typeof reply.data === "string" ? decodeBase64(reply.data) : undefined;
      if (!data || data.length !== n || reply.offset !== read || md5Hex(data) !== reply.md5) {
        damaged++;
        host.log.warn("a firmware chunk arrived damaged", { target, offset: read, attempt: damaged });
        if (damaged <= CHUNK_RETRIES) continue;
        await this.#fail(target, image, `the chunk at ${read} arrived damaged ${damaged} times`, false);
        return spent;
      }
      damaged = 0;
      const stored = await this.#lock.run(async () => {
        if (!images.has(object)) return false;
        await images.append(object, read, data);
        return true;
      });
      const at = read + n;
      const still =
        stored &&
        (await host.exclusive(() => {
          const now = this.record(target);
          if (now.mode !== "downloading" || now.image?.name !== image.name) return false;
          saveTarget(box, target, { ...now, read: at, status: progress(at, image.length) }, host.noteTime());
          return true;
        }));
      if (!still) break;
      read = at;
      spent += n;
      if (read < image.length && (await host.exclusive(() => this.#waiting(target, image)))) break;
    }
    if (read >= image.length && !this.#disposed) await this.#finish(target, image);
    await this.#tidy(target);
    return spent;
  }

  /** A download that may not run now says why in its status; true when it waits. */
  #waiting(target: DfuTarget, image: FirmwareImage): boolean {
    const why = this.#blocked(target);
    if (!why) return false;
    const r = this.record(target);
    const status = `waiting: ${why}`;
    if (r.image?.name === image.name && r.status !== status) {
      saveTarget(this.#host.notebox, target, { ...r, status }, this.#host.noteTime());
    }
    return true;
  }

  /** The whole image is in flash: verify it, then hand it on (host) or install it (module). */
  async #finish(target: DfuTarget, image: FirmwareImage): Promise<void> {
    const host = this.#host;
    const box = host.notebox;
    const images = host.images!;
    const object = IMAGE_OBJECT[target];
    const md5 = await this.#lock.run(() => images.md5(object));
    if (md5 !== image.md5) {
      await this.#fail(
        target,
        image,
        `the downloaded image's MD5 ${md5} is not the hub's ${image.md5}`,
        false,
      );
      return;
    }
    if (target === "user") {
      await host.exclusive(() => {
        const r = this.record("user");
        if (r.image?.name !== image.name) return;
        const outboard = this.outboardEnabled();
        const mode = outboard ? "outboard-ready" : "ready";
        const why = outboard
          ? "downloaded and verified; an outboard update will write it to the host"
          : "downloaded and verified; ready for the host (dfu.get)";
        saveTarget(box, "user", { ...r, mode, read: image.length, status: why }, host.noteTime(), {
          mode,
          status: why,
        });
      });
      return;
    }
    const header = await this.#lock.run(() => images.read(object, 0, MODULE_IMAGE_HEADER_BYTES));
    const installed = await host.exclusive(() => {
      const now = host.noteTime();
      let r = this.record("card");
      if (r.image?.name !== image.name) return false;
      r = saveTarget(
        box,
        "card",
        { ...r, mode: "ready", read: image.length, status: "downloaded and verified" },
        now,
        {
          mode: "ready",
          status: "downloaded and verified",
        },
      );
      const parsed = moduleImageRelease(header, host.variant.target);
      if ("problem" in parsed) {
        const why = `the module refused the image: ${parsed.problem}`;
        saveTarget(
          box,
          "card",
          { ...r, mode: "error", errors: DFU_MAX_ERRORS, read: undefined, status: why },
          now,
          {
            mode: "error",
            status: why,
          },
        );
        return false;
      }
      box.setConfig(INSTALLED_FIRMWARE_KEY, parsed.release);
      const version = releaseName(parsed.release);
      const why = `installed ${version}; the module restarts into it`;
      saveTarget(box, "card", { ...r, mode: "completed", read: undefined, version, status: why }, now, {
        mode: "completed",
        status: why,
      });
      host.log.info("module firmware installed", { version });
      return true;
    });
    await this.#dropImage("card");
    if (installed) this.#restartAfterSession = true;
  }

  /** The attempt failed: the image goes; `final` (or too many errors) ends the update in error. */
  async #fail(target: DfuTarget, image: FirmwareImage, why: string, final: boolean): Promise<void> {
    await this.#host.exclusive(() => {
      const r = this.record(target);
      if (r.image?.name !== image.name) return;
      const errors = final ? DFU_MAX_ERRORS : Math.min(DFU_MAX_ERRORS, (r.errors ?? 0) + 1);
      saveTarget(
        this.#host.notebox,
        target,
        { ...r, mode: "error", errors, read: undefined, taken: undefined, status: why },
        this.#host.noteTime(),
        { mode: "error", status: why },
      );
    });
    this.#host.log.warn("firmware download failed", { target, why });
    await this.#dropImage(target);
  }

  /** Tells the hub what changed for a target since it last heard; forgets what it acknowledged. */
  async #report(session: OpenSession, target: DfuTarget): Promise<void> {
    const host = this.#host;
    const pending = await host.exclusive(() => {
      const r = this.record(target);
      if ((r.rev ?? 0) <= (r.reported ?? 0) && (r.updates ?? []).length === 0) return undefined;
      return { rev: r.rev ?? 0, seq: r.seq ?? 0, state: reportedState(target, r), updates: r.updates ?? [] };
    });
    if (!pending) return;
    await session.exchange({ type: "dfu", target, state: pending.state, updates: pending.updates });
    await host.exclusive(() => {
      const r = this.record(target);
      const updates = (r.updates ?? []).filter((u) => u.seq > pending.seq);
      const next: Record<string, unknown> = { ...r, reported: Math.max(r.reported ?? 0, pending.rev) };
      if (updates.length > 0) next["updates"] = updates;
      else delete next["updates"];
      host.notebox.setConfig(DFU_KEYS[target], next);
    });
  }

  #afterSession(): void {
    if (!this.#restartAfterSession || this.#disposed) return;
    this.#restartAfterSession = false;
    // After the session has ended: the restart replaces the engine that is calling us.
    void Promise.resolve().then(() =>
      this.#host
        .restart()
        .catch((error: unknown) =>
          this.#host.log.error("restart after a firmware update failed", { error: String(error) }),
        ),
    );
  }

  // --- images ---------------------------------------------------------------------------------

  async #dropImage(target: DfuTarget): Promise<void> {
    const images = this.#host.images;
    if (!images) return;
    await this.#lock.run(() => images.delete(IMAGE_OBJECT[target]));
  }

  /** Deletes an image no record holds (left by a stop, a factory reset, a cancelled download). */
  async #tidy(target: DfuTarget): Promise<void> {
    const images = this.#host.images;
    if (!images || !images.has(IMAGE_OBJECT[target])) return;
    // A read of the record needs no turn; the lock keeps the image's writers out.
    if (!HOLDS_IMAGE.has(this.record(target).mode)) await this.#dropImage(target);
  }

  /**
   * At boot: images nobody holds go; an outboard update cut short starts again; the host is reset.
   * A module with nothing under way takes no turn here.
   */
  async #resume(): Promise<void> {
    for (const target of DFU_TARGETS) await this.#tidy(target);
    if (this.record("user").flashing) {
      await this.#host.exclusive(() => {
        const r = this.record("user");
        if (r.flashing)
          saveTarget(this.#host.notebox, "user", { ...r, flashing: undefined }, this.#host.noteTime());
      });
    }
    // A module set up for outboard updates resets its host when it starts, unless told not to.
    const o = this.outboardSettings();
    if (o.name !== undefined && o.on === true && !o.noReset && !this.#disposed) await this.#pulseReset();
    this.#kickOutboard();
  }

  // --- DFU mode -------------------------------------------------------------------------------

  #leaveDfuMode(): void {
    const s = hubSettings(this.#host);
    if (s.mode !== "dfu") return;
    storeRecord(this.#host.notebox, HUB_CONFIG_KEY, {
      ...s,
      mode: s.previousMode === "periodic" ? undefined : s.previousMode,
      previousMode: undefined,
    });
    this.#host.log.info("left DFU mode: no DFU activity for 15 minutes");
  }

  // --- outboard updates -------------------------------------------------------------------------

  /** Starts an outboard update when a host image waits for one and it may run. */
  #kickOutboard(): void {
    if (this.#outboard || this.#disposed || !this.#host.images) return;
    // Nothing to write, or no host class set: no turn is taken.
    const r = this.record("user");
    const o = this.outboardSettings();
    if (!r.image || (r.mode !== "ready" && r.mode !== "outboard-ready") || o.name === undefined || !o.on)
      return;
    const run = (async () => {
      const go = await this.#host.exclusive(() => this.#outboardDue());
      if (go) await this.#flashHost();
    })();
    this.#outboard = run;
    run
      .catch((error: unknown) => {
        if (!this.#disposed) this.#host.log.error("outboard update failed", { error: String(error) });
      })
      .finally(() => {
        if (this.#outboard === run) this.#outboard = undefined;
      });
  }

  /** In a turn: whether an outboard update should start now (a ready image turns outboard-ready). */
  #outboardDue(): boolean {
    const host = this.#host;
    const r = this.record("user");
    const o = this.outboardSettings();
    if (o.offUntil !== undefined && o.offUntil > host.clock.now()) {
      this.#outboardTimer.set(o.offUntil - host.clock.now(), () => this.#kickOutboard());
    }
    if (!this.outboardEnabled() || !r.image) return false;
    if (r.mode === "ready" && !r.taken) {
      const why = "ready; an outboard update will write it to the host";
      saveTarget(host.notebox, "user", { ...r, mode: "outboard-ready", status: why }, host.noteTime(), {
        mode: "outboard-ready",
        status: why,
      });
      return true;
    }
    return r.mode === "outboard-ready";
  }

  async #pulseReset(): Promise<void> {
    this.#lines.reset(true);
    await sleep(this.#host.clock, RESET_PULSE_MS);
    this.#lines.reset(false);
  }

  /**
   * Writes the ready host image to the host's bootloader: BOOT to the level the host class
   * selects its bootloader with, a RESET pulse, the image at the outboard rate, BOOT released and
   * another RESET into the new firmware. Cut short (power, restart), it starts again at boot.
   */
  async #flashHost(): Promise<void> {
    const host = this.#host;
    const box = host.notebox;
    const images = host.images!;
    const start = await host.exclusive(() => {
      const r = this.record("user");
      if (r.mode !== "outboard-ready" || !r.image) return undefined;
      const why = "outboard update: resetting the host into its bootloader";
      saveTarget(box, "user", { ...r, flashing: true, status: why }, host.noteTime(), {
        mode: "outboard-ready",
        status: why,
      });
      return { image: r.image, name: this.outboardSettings().name! };
    });
    if (!start) return;
    const { image, name } = start;
    this.#lines.boot(OUTBOARD_CLASSES[name].bootHigh);
    await this.#pulseReset();
    await sleep(host.clock, BOOTLOADER_START_MS);
    const md5 = new Md5();
    let lastStatus = 0;
    for (let offset = 0; offset < image.length; offset += OUTBOARD_BLOCK) {
      if (this.#disposed) return;
      const bytes = await this.#lock.run(() =>
        images.read(IMAGE_OBJECT.user, offset, Math.min(OUTBOARD_BLOCK, image.length - offset)),
      );
      if (bytes.length === 0) break;
      md5.update(bytes);
      await this.#lines.program?.(offset, bytes);
      // Ten bits a byte on the wire to the bootloader.
      await sleep(host.clock, Math.ceil((bytes.length * 10 * 1000) / this.#baud));
      const sent = offset + bytes.length;
      if (sent - lastStatus >= 64 * 1024 || sent === image.length) {
        lastStatus = sent;
        await host.exclusive(() => {
          const r = this.record("user");
          if (r.image?.name !== image.name || !r.flashing) return;
          const why = `outboard update: ${Math.floor((sent * 100) / image.length)}% written to the host`;
          saveTarget(box, "user", { ...r, status: why }, host.noteTime());
        });
      }
    }
    if (this.#disposed) return;
    this.#lines.boot(undefined);
    await this.#pulseReset();
    const ok = md5.hex() === image.md5;
    await host.exclusive(() => {
      const r = this.record("user");
      if (r.image?.name !== image.name) return;
      const why = ok
        ? `the host was updated by an outboard update (${name})`
        : "the image read back from flash did not match its MD5; the host was not updated";
      const mode = ok ? "completed" : "error";
      saveTarget(
        box,
        "user",
        {
          ...r,
          mode,
          flashing: undefined,
          read: undefined,
          ...(ok ? {} : { errors: DFU_MAX_ERRORS }),
          status: why,
        },
        host.noteTime(),
        { mode, status: why },
      );
    });
    await this.#dropImage("user");
  }

  // --- helpers --------------------------------------------------------------------------------

  #switches(): DfuSwitches {
    return this.#host.notebox.config<DfuSwitches>(DFU_KEYS.switches) ?? {};
  }

  /** Work nobody waits on: a failure is logged (unless the module went meanwhile). */
  #background(what: string, task: () => Promise<unknown>): void {
    if (this.#disposed) return;
    task().catch((error: unknown) => {
      if (!this.#disposed) this.#host.log.error(`${what} failed`, { error: String(error) });
    });
  }
}

function defaultStatus(mode: DfuMode): string {
  switch (mode) {
    case "idle":
      return "no firmware update";
    case "downloading":
      return "downloading";
    case "ready":
      return "downloaded and verified";
    case "outboard-ready":
      return "ready for an outboard update";
    case "completed":
      return "update completed";
    case "error":
      return "update failed";
  }
}

function compact<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}
