import {
  DFU_MAX_ERRORS,
  DFU_TARGETS,
  SYNC_ERRORS,
  type DfuTarget,
  type FirmwareImage,
  type FirmwareReply,
} from "../../protocol/messages.js";
import { effectiveMode, hubSettings } from "../config/HubConfig.js";
import type { ModuleCore } from "../ModuleCore.js";
import { SyncFailure, type OpenSession } from "../sync/SyncEngine.js";
import { DfuDownload, progress } from "./DfuDownload.js";
import type { DfuImages } from "./DfuImages.js";
import {
  bookkeeping,
  DFU_KEYS,
  reportedState,
  saveTarget,
  targetRecord,
  type TargetRecord,
} from "./DfuRecords.js";

/** What a session should do with a target after hearing what the hub wants. */
interface Plan {
  readonly drop: boolean;
  readonly download: boolean;
}
const NOTHING: Plan = { drop: false, download: false };

/** An image the module holds or fetches that the hub's offer leaving its target out cancels. */
function cancelledByNoOffer(r: TargetRecord): boolean {
  if (!r.image || r.flashing) return false;
  return r.mode === "downloading" || r.mode === "ready" || r.mode === "outboard-ready";
}

/** What a target has to tell the hub (a `dfu` message): its state, and the updates since. */
interface PendingReport {
  readonly target: DfuTarget;
  readonly rev: number;
  readonly seq: number;
  readonly state: ReturnType<typeof reportedState>;
  readonly updates: NonNullable<TargetRecord["updates"]>;
}

/** What the firmware step of a session needs besides the module's core. */
export interface DfuSessionHost extends ModuleCore {
  /** Restarts the module on its flash (after it installed its own firmware). */
  restart(): Promise<void>;
}

/**
 * The firmware step of every sync session: tells the hub what changed for each target
 * (`dfu`), asks which images it wants the module to hold (`firmware`), starts, resumes, restarts
 * or cancels their downloads within the session's byte budget, and restarts the module after
 * the session when it installed its own new firmware.
 */
export class DfuSessions {
  readonly #module: DfuSessionHost;
  readonly #images: DfuImages;
  readonly #download: DfuDownload;
  readonly #sessionBytes: number;
  /** After a session's downloads (an outboard update may start). */
  readonly #downloaded: () => void;
  #disposed = false;
  #restartAfterSession = false;

  /** `sessionBytes`: bytes of images one session downloads at most; `readBytes`: bytes a `read` asks for. */
  constructor(
    module: DfuSessionHost,
    images: DfuImages,
    budgets: { sessionBytes: number; readBytes: number },
    downloaded: () => void,
  ) {
    this.#module = module;
    this.#images = images;
    this.#download = new DfuDownload(module, images, budgets.readBytes);
    this.#sessionBytes = budgets.sessionBytes;
    this.#downloaded = downloaded;
  }

  dispose(): void {
    this.#disposed = true;
    this.#download.dispose();
  }

  /** The session step: a hub that does not take firmware messages gives no updates this session. */
  async step(session: OpenSession): Promise<void> {
    try {
      await this.#session(session);
    } catch (error) {
      // A hub that does not take firmware messages (an older one) refuses the first of them:
      // the session goes on without updates.
      if (error instanceof SyncFailure && error.message.includes(`{${SYNC_ERRORS.badRequest}}`)) {
        this.#module.log.warn("the hub refused a firmware message: no updates this session", {
          error: error.message,
        });
        return;
      }
      throw error;
    }
  }

  /** After every session: the module restarts into the firmware it installed. */
  afterSession(): void {
    if (!this.#restartAfterSession || this.#disposed) return;
    this.#restartAfterSession = false;
    // After the session has ended: the restart replaces the engine that is calling us.
    void Promise.resolve().then(() =>
      this.#module
        .restart()
        .catch((error: unknown) =>
          this.#module.log.error("restart after a firmware update failed", { error: String(error) }),
        ),
    );
  }

  /**
   * What the session's `open` asks for: the hub's firmware offer in its reply, when this session
   * will take updates (so that a session with nothing to report sends no `firmware` message).
   */
  openFields(): { firmware_offer: true } | undefined {
    return this.#takesUpdates() ? { firmware_offer: true } : undefined;
  }

  /**
   * True when this session's step sends nothing if the hub offers no image: nothing to report, and
   * no image held that an empty offer would cancel (which is reported). Call in a turn or between.
   */
  quiet(): boolean {
    if (!this.#takesUpdates()) return true;
    const box = this.#module.notebox;
    return (
      this.#pending().length === 0 && DFU_TARGETS.every((t) => !cancelledByNoOffer(targetRecord(box, t)))
    );
  }

  /** Updates are unavailable without image flash, in minimum and off mode (and DFU mode never syncs). */
  #takesUpdates(): boolean {
    const module = this.#module;
    if (!module.images || this.#disposed) return false;
    const mode = effectiveMode(hubSettings(module), module.voltage.now().usb);
    return mode !== "minimum" && mode !== "off" && mode !== "dfu";
  }

  async #session(session: OpenSession): Promise<void> {
    const module = this.#module;
    if (!this.#takesUpdates()) return;
    // The open's offer names no image and nothing is to be reported or cancelled: nothing to do,
    // and no turn among the module's writers to find that out (most sessions).
    const offered = session.opened?.firmware;
    if (offered && !offered.user && !offered.card && this.quiet()) {
      this.#downloaded();
      return;
    }
    // What the host did since the last session reaches the hub before the hub is asked again:
    // after a report the offer the open carried may be out of date, and the hub is asked anew.
    const reported = await this.#report(session, await module.exclusive(() => this.#pending()));
    const carried = reported ? undefined : session.opened?.firmware;
    const offer = carried ?? (await session.exchange<FirmwareReply>({ type: "firmware" }));
    // One turn decides for every target (and finds what there is to report when nothing is to
    // be done); the drops and downloads it plans follow, target by target.
    const decided = await module.exclusive(() => {
      const plans = DFU_TARGETS.map((target) => ({ target, ...this.#consider(target, offer[target]) }));
      return { plans, pending: this.#pending() };
    });
    let budget = this.#sessionBytes;
    let worked = false;
    for (const plan of decided.plans) {
      if (plan.drop) await this.#images.drop(plan.target);
      if (plan.download && budget > 0) {
        const { spent, installed } = await this.#download.run(session, plan.target, budget);
        budget -= spent;
        if (installed) this.#restartAfterSession = true;
      }
      worked ||= plan.drop || plan.download;
    }
    await this.#report(session, worked ? await module.exclusive(() => this.#pending()) : decided.pending);
    this.#downloaded();
  }

  /** In a turn: what each target has to tell the hub since it last heard. */
  #pending(): PendingReport[] {
    const pending: PendingReport[] = [];
    for (const target of DFU_TARGETS) {
      const r = targetRecord(this.#module.notebox, target);
      if ((r.rev ?? 0) <= (r.reported ?? 0) && (r.updates ?? []).length === 0) continue;
      const updates = r.updates ?? [];
      pending.push({ target, rev: r.rev ?? 0, seq: r.seq ?? 0, state: reportedState(target, r), updates });
    }
    return pending;
  }

  /** In a turn: compares what the hub wants with what the module holds; returns what to do. */
  #consider(target: DfuTarget, image: FirmwareImage | undefined): Plan {
    const box = this.#module.notebox;
    const now = this.#module.noteTime();
    const r = targetRecord(box, target);
    if (!image) {
      if (!cancelledByNoOffer(r)) return NOTHING;
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

  /**
   * Tells the hub what changed for each target since it last heard, and forgets what it
   * acknowledged; true when there was anything to tell.
   */
  async #report(session: OpenSession, reports: readonly PendingReport[]): Promise<boolean> {
    const module = this.#module;
    for (const pending of reports) {
      const { target } = pending;
      await session.exchange({ type: "dfu", target, state: pending.state, updates: pending.updates });
      await module.exclusive(() => {
        const r = targetRecord(module.notebox, target);
        const updates = (r.updates ?? []).filter((u) => u.seq > pending.seq);
        const next: Record<string, unknown> = { ...r, reported: Math.max(r.reported ?? 0, pending.rev) };
        if (updates.length > 0) next["updates"] = updates;
        else delete next["updates"];
        module.notebox.setConfig(DFU_KEYS[target], next);
      });
    }
    return reports.length > 0;
  }
}
