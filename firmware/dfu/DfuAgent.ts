import type { JsonObject } from "../../core/json.js";
import { DFU_MAX_ERRORS, DFU_TARGETS, MAX_READ_BYTES, type DfuTarget } from "../../protocol/messages.js";
import { storeRecord } from "../config/compactRecord.js";
import type { SyncEngine } from "../sync/SyncEngine.js";
import { DfuImages, IMAGE_OBJECT } from "./DfuImages.js";
import { DfuModeTimer } from "./DfuModeTimer.js";
import {
  bookkeeping,
  defaultStatus,
  DFU_KEYS,
  dfuSwitches,
  saveTarget,
  targetRecord,
  type OutboardSettings,
  type TargetRecord,
} from "./DfuRecords.js";
import { DfuSessions, type DfuSessionHost } from "./DfuSessions.js";
import { unwiredHostLines, type HostDfuLines } from "./HostDfuLines.js";
import { OutboardUpdate } from "./OutboardUpdate.js";

export { IMAGE_OBJECT } from "./DfuImages.js";
export { DFU_MODE_IDLE_MS } from "./DfuModeTimer.js";

/** What the DFU agent needs of the module besides its core. */
export interface DfuHost extends DfuSessionHost {
  readonly sync: SyncEngine;
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

export const DEFAULT_DFU_SESSION_BYTES = 512 * 1024;
export const DEFAULT_DFU_READ_BYTES = 64 * 1024;

/**
 * The module's firmware updates (docs/dfu.md): a step of every sync session downloads the images
 * the hub wants (`firmware`, `read`), in chunks that are durable in flash before the flash record
 * says so, resumable across sessions, restarts and power losses, verified by MD5; progress goes to
 * the hub (`dfu`). A host image waits for the host (`dfu.get` in DFU mode, `dfu.status stop`) or
 * is written to the host by an outboard update (`card.dfu`); a module image is installed, and the
 * module restarts into it. RAM only: every restart makes a new agent from what the flash kept.
 *
 * This is what requests see; the work is done by its parts: `DfuSessions` (the session step,
 * with `DfuDownload`), `OutboardUpdate`, `DfuModeTimer`, and `DfuImages` (the image files).
 */
export class DfuAgent {
  readonly #host: DfuHost;
  readonly #images: DfuImages;
  readonly #sessions: DfuSessions;
  readonly #outboard: OutboardUpdate;
  readonly #mode: DfuModeTimer;
  readonly #unsubscribe: (() => void)[] = [];
  #disposed = false;

  constructor(host: DfuHost, options: DfuOptions = {}) {
    this.#host = host;
    this.#images = new DfuImages(host);
    const budgets = {
      sessionBytes: Math.max(1, options.sessionBytes ?? DEFAULT_DFU_SESSION_BYTES),
      readBytes: Math.min(MAX_READ_BYTES, Math.max(1, options.readBytes ?? DEFAULT_DFU_READ_BYTES)),
    };
    this.#outboard = new OutboardUpdate(
      host,
      this.#images,
      options.hostLines ?? unwiredHostLines,
      options.outboardBaud ?? 115_200,
    );
    this.#sessions = new DfuSessions(host, this.#images, budgets, () => this.#outboard.kick());
    this.#mode = new DfuModeTimer(host);
  }

  /** Joins the sync engine's sessions and picks up what the flash says was under way. */
  start(): void {
    const sync = this.#host.sync;
    this.#unsubscribe.push(
      sync.addStep({
        name: "dfu",
        open: () => this.#sessions.openFields(),
        quiet: () => this.#sessions.quiet(),
        run: (session) => this.#sessions.step(session),
      }),
    );
    this.#unsubscribe.push(sync.onSession(() => this.#sessions.afterSession()));
    this.noticeMode();
    // Work nobody waits on: a failure is logged (unless the module went meanwhile).
    this.#resume().catch((error: unknown) => {
      if (!this.#disposed) this.#host.log.error("DFU start failed", { error: String(error) });
    });
  }

  dispose(): void {
    this.#disposed = true;
    this.#mode.dispose();
    this.#outboard.dispose();
    this.#sessions.dispose();
    for (const off of this.#unsubscribe.splice(0)) off();
  }

  // --- what requests use (in their writer turn) -----------------------------------------------

  record(target: DfuTarget): TargetRecord {
    return targetRecord(this.#host.notebox, target);
  }

  /** `dfu.status`'s reply for a target. */
  status(target: DfuTarget): JsonObject {
    const r = this.record(target);
    const off = dfuSwitches(this.#host.notebox)[target]?.off === true;
    const card = this.record("card");
    const none = !this.#host.images && r.mode === "idle";
    return {
      mode: r.mode,
      status: none
        ? "this module has no flash set aside for firmware images"
        : (r.status ?? defaultStatus(r.mode)),
      ...(r.image && r.mode !== "idle" ? { body: { ...r.image } } : {}),
      // dfu.status.rsp requires `on`: false beside `off:true`.
      ...(off ? { off: true, on: false } : { on: true }),
      pending: r.mode === "downloading" || card.mode === "downloading" || card.mode === "ready",
    };
  }

  /** `dfu.status on/off/vvalue`: whether downloads for a target may run. */
  setSwitch(target: DfuTarget, change: { on?: boolean; off?: boolean; vvalue?: string | null }): void {
    const switches = dfuSwitches(this.#host.notebox);
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
    await this.#images.drop(target);
  }

  /** Whether `dfu.get` may read: `off` (not in DFU mode), `starting` (a session is still ending), `active`. */
  dfuMode(): "off" | "starting" | "active" {
    return this.#mode.mode();
  }

  /** A `dfu.get` read: `length` bytes of the ready host image from `offset`. */
  async readForHost(offset: number, length: number): Promise<Uint8Array> {
    const r = this.record("user");
    if (!r.taken) saveTarget(this.#host.notebox, "user", { ...r, taken: true }, this.#host.noteTime());
    this.touchDfuMode();
    const images = this.#host.images!;
    return this.#images.run(() => images.read(IMAGE_OBJECT.user, offset, length));
  }

  /** After every request: DFU mode ends by itself after a quiet spell. */
  noticeMode(): void {
    if (this.#disposed) return;
    this.#mode.notice();
  }

  /** The host is working in DFU mode: the quiet spell starts again. */
  touchDfuMode(): void {
    this.#mode.touch();
  }

  outboardSettings(): OutboardSettings {
    return this.#outboard.settings();
  }

  /** `card.dfu` changed its settings: an update waiting for the host may start. */
  setOutboard(settings: OutboardSettings): void {
    this.#outboard.setSettings(settings);
  }

  /** Outboard updates are configured, on, and not paused. */
  outboardEnabled(): boolean {
    return this.#outboard.enabled();
  }

  /**
   * At boot: images nobody holds go; an outboard update cut short starts again; the host is reset.
   * A module with nothing under way takes no turn here.
   */
  async #resume(): Promise<void> {
    for (const target of DFU_TARGETS) await this.#images.tidy(target);
    await this.#outboard.resume();
  }
}

function compact<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}
