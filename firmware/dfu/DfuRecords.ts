import type { JsonObject } from "../../core/json.js";
import type { DfuState, DfuTarget, FirmwareImage } from "../../protocol/messages.js";
import type { Notebox } from "../storage/Notebox.js";
import type { OutboardClass } from "./HostDfuLines.js";

/** The modes `dfu.status` reports (the spec's module DFU status table). */
export type DfuMode = "idle" | "downloading" | "ready" | "error" | "outboard-ready" | "completed";

/** Configuration records of firmware updates (docs/dfu.md). */
export const DFU_KEYS = {
  /** `TargetRecord` of the host's firmware and of the module's own. */
  user: "dfu.user",
  card: "dfu.card",
  /** `DfuSwitches`: `dfu.status` on/off and vvalue, per target. */
  switches: "dfu.switches",
  /** `OutboardSettings`: `card.dfu`. */
  outboard: "card.dfu",
} as const;

/** A step of an update not yet acknowledged by the hub. */
export interface PendingUpdate extends JsonObject {
  readonly seq: number;
  readonly time: number;
  readonly mode: string;
  readonly status: string;
  readonly file?: string;
}

/** Where one target's update stands, kept in flash so a download resumes after any restart. */
export interface TargetRecord extends JsonObject {
  readonly mode: DfuMode;
  readonly status?: string;
  /** The image being (or last) downloaded, as the hub described it. */
  readonly image?: FirmwareImage;
  /** Bytes of it durable in flash. */
  readonly read?: number;
  /** Epoch seconds the download began, the record last changed. */
  readonly began?: number;
  readonly updated?: number;
  /** Consecutive errors with this image. */
  readonly errors?: number;
  /** The version of the image, or the one the module runs after installing it. */
  readonly version?: string;
  /** The host read from the ready image with `dfu.get` (so `dfu.status stop` means it installed it). */
  readonly taken?: boolean;
  /** The host stopped this image: it is not downloaded again until the hub offers another. */
  readonly stopped?: boolean;
  /** An outboard update is writing the image to the host now. */
  readonly flashing?: boolean;
  /** Steps the hub has not acknowledged, oldest first; `seq` numbers them. */
  readonly updates?: readonly PendingUpdate[];
  readonly seq?: number;
  /** Changes made (`rev`) and reported to the hub (`reported`). */
  readonly rev?: number;
  readonly reported?: number;
}

export interface DfuSwitch extends JsonObject {
  /** Downloads turned off with `dfu.status off:true`. */
  readonly off?: boolean;
  /** `usb:1;high:1;normal:0;low:0;dead:0`: downloads only in the supply states given 1. */
  readonly vvalue?: string;
}

export type DfuSwitches = Partial<Record<DfuTarget, DfuSwitch>>;

/** `card.dfu`: outboard firmware updates of the host. */
export interface OutboardSettings extends JsonObject {
  readonly name?: OutboardClass;
  readonly on?: boolean;
  /** Clock ms until which outboard updates stay off (`off:true, seconds`). */
  readonly offUntil?: number;
  /** `stop:true`: the module does not reset the host when it starts. */
  readonly noReset?: boolean;
  /** `mode:altdfu`: the ALT_DFU pins instead of the AUX pins. */
  readonly altdfu?: boolean;
}

/** Steps kept for the hub at most (older ones are dropped). */
const MAX_PENDING = 20;

export const IDLE: TargetRecord = { mode: "idle" };

export function targetRecord(box: Notebox, target: DfuTarget): TargetRecord {
  return box.config<TargetRecord>(DFU_KEYS[target]) ?? IDLE;
}

/**
 * Stores a target's new state: the change is counted (the hub hears of it at the next session),
 * dated, and `update` (a step the hub's history shows) is queued with the next sequence number.
 */
export function saveTarget(
  box: Notebox,
  target: DfuTarget,
  next: TargetRecord,
  now: number,
  update?: { mode: string; status: string },
): TargetRecord {
  let record: TargetRecord = { ...next, updated: now, rev: (next.rev ?? 0) + 1 };
  if (update) {
    const seq = (record.seq ?? 0) + 1;
    const step: PendingUpdate = {
      seq,
      time: now,
      mode: update.mode,
      status: update.status,
      ...(record.image ? { file: record.image.name } : {}),
    };
    record = { ...record, seq, updates: [...(record.updates ?? []), step].slice(-MAX_PENDING) };
  }
  const compact = Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
  box.setConfig(DFU_KEYS[target], compact);
  return compact as TargetRecord;
}

/** The module's modes in the hub's vocabulary (the device record's `dfu` mode). */
export function hubMode(record: TargetRecord): string {
  switch (record.mode) {
    case "outboard-ready":
      return record.flashing ? "updating" : "ready";
    default:
      return record.mode;
  }
}

/** What the module reports of a target (the device record's `dfu.user` / `dfu.card`). */
export function reportedState(target: DfuTarget, record: TargetRecord): DfuState {
  const image = record.image;
  const state: Record<string, unknown> = {
    type: target,
    mode: hubMode(record),
    status: record.status,
    file: image?.name,
    length: image?.length,
    md5: image?.md5,
    crc32: image?.crc32,
    read: record.read,
    began: record.began,
    updated: record.updated,
    errors: record.errors,
    version: record.version ?? image?.version,
  };
  for (const key of Object.keys(state)) if (state[key] === undefined) delete state[key];
  return state as DfuState;
}

/** A record's state without its image: what is kept when one update ends and another begins. */
export function bookkeeping(r: TargetRecord): TargetRecord {
  const keep: Record<string, unknown> = { mode: "idle" };
  for (const key of ["updates", "seq", "rev", "reported"] as const)
    if (r[key] !== undefined) keep[key] = r[key];
  return keep as unknown as TargetRecord;
}

/** The status text of a mode whose record says none. */
export function defaultStatus(mode: DfuMode): string {
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

/** `dfu.status on/off/vvalue` of every target. */
export function dfuSwitches(box: Notebox): DfuSwitches {
  return box.config<DfuSwitches>(DFU_KEYS.switches) ?? {};
}

/** `card.dfu`'s settings. */
export function outboardSettings(box: Notebox): OutboardSettings {
  return box.config<OutboardSettings>(DFU_KEYS.outboard) ?? {};
}

/** Outboard updates are configured, on, and not paused at clock time `now` (ms). */
export function outboardEnabled(o: OutboardSettings, now: number): boolean {
  return o.name !== undefined && o.on === true && !(o.offUntil !== undefined && o.offUntil > now);
}
