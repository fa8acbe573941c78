import type { JsonObject } from "../core/json.js";
import type { ProtocolReply, ProtocolRequest } from "./envelope.js";

/**
 * Firmware updates ride on sync sessions: after the notefiles moved, the module asks what the hub
 * wants it to take (`firmware`), reads that image in byte ranges (`read`, over as many sessions as
 * it takes; a download resumes where the module's flash says it stopped) and reports its progress
 * (`dfu`), which the hub keeps in the device record's `dfu` object and the DFU history.
 *
 * Targets are named as the module names them: `user` is the host MCU's firmware (the API's `host`
 * type), `card` the module's own (`notecard`).
 */
export type DfuTarget = "user" | "card";
export const DFU_TARGETS: readonly DfuTarget[] = ["user", "card"];

/** The most bytes one `read` asks for (its reply stays far below the 1 MiB message limit). */
export const MAX_READ_BYTES = 256 * 1024;

/**
 * Consecutive errors after which a module gives an image up (it stays in `error` until the hub
 * offers another image or the host stops the update); the hub then marks the request failed.
 */
export const DFU_MAX_ERRORS = 3;

/** What an image is, as the hub describes it; the module shows it as `dfu.status` `body`. */
export interface FirmwareImage extends JsonObject {
  /** The stored name, unique in the project: the uploaded name with its upload time. */
  readonly name: string;
  /** The name it was uploaded under. */
  readonly source: string;
  /** `firmware` (a host image) or `notecard` (a module image). */
  readonly type: string;
  readonly length: number;
  /** MD5 of the whole image, lowercase hex: the module verifies the download against it. */
  readonly md5: string;
  /** CRC-32 (IEEE) of the whole image, as hosts that check a CRC read it. */
  readonly crc32: number;
  /** Epoch seconds of the upload and of the last metadata change. */
  readonly created: number;
  readonly modified: number;
  readonly version?: string;
  readonly notes?: string;
  /** The metadata the image carries (`firmware::info:` JSON) or the API set. */
  readonly info?: JsonObject;
}

/** What the hub wants the module to take; a target that is absent has nothing for it. */
export interface FirmwareRequest extends ProtocolRequest {
  readonly type: "firmware";
  readonly token: string;
}

/**
 * The image the hub wants each target to take. A target left out has none: a module holding or
 * downloading an image for it (that it has not finished with) drops it, the update was cancelled.
 */
export interface FirmwareOffer extends JsonObject {
  readonly user?: FirmwareImage;
  readonly card?: FirmwareImage;
}

/** The hub's offer, asked for by a `firmware` message (or carried by the `open` reply when asked). */
export interface FirmwareReply extends ProtocolReply, FirmwareOffer {}

/** `length` bytes of an image from `offset` (fewer at its end). */
export interface ReadRequest extends ProtocolRequest {
  readonly type: "read";
  readonly token: string;
  readonly target: DfuTarget;
  /** The image's stored name (`FirmwareImage.name`). */
  readonly name: string;
  readonly offset: number;
  readonly length: number;
}

export interface ReadReply extends ProtocolReply {
  readonly name: string;
  readonly offset: number;
  /** The bytes, base64; the module checks them against `md5` before it stores them. */
  readonly data: string;
  readonly md5: string;
}

/**
 * The device record's `dfu.user` / `dfu.card` object (the API's DFUState): the module's progress
 * in the hub's vocabulary (`mode` idle, downloading, ready, updating, completed, error).
 */
export interface DfuState extends JsonObject {
  readonly type: DfuTarget;
  readonly mode: string;
  readonly status?: string;
  /** The image's stored name, length and digests. */
  readonly file?: string;
  readonly length?: number;
  readonly md5?: string;
  readonly crc32?: number;
  /** Bytes the module holds of it. */
  readonly read?: number;
  /** Epoch seconds: the download began, the state last changed. */
  readonly began?: number;
  readonly updated?: number;
  /** Consecutive errors (`DFU_MAX_ERRORS` ends the attempt). */
  readonly errors?: number;
  /** The version the image carries, or the module runs after installing it. */
  readonly version?: string;
}

/** One step of an update as the module saw it (the hub's DFU history). */
export interface DfuUpdate extends JsonObject {
  /** Epoch seconds (0 while the module does not know the time). */
  readonly time: number;
  /** The module's `dfu.status` mode after the step, or `stopped` (the host stopped the update). */
  readonly mode: string;
  readonly status: string;
  /** The image it concerns. */
  readonly file?: string;
}

/**
 * The module's progress on one target: its state now and the steps since its last acknowledged
 * report, oldest first. Repeating a report is harmless (each step carries its sequence number).
 */
export interface DfuReportRequest extends ProtocolRequest {
  readonly type: "dfu";
  readonly token: string;
  readonly target: DfuTarget;
  readonly state: DfuState;
  readonly updates: readonly (DfuUpdate & { readonly seq: number })[];
}

export type DfuReportReply = ProtocolReply;

/** Error codes of the firmware messages (besides `SYNC_ERRORS`). */
export const DFU_ERRORS = {
  /** The image named does not exist (any more): the module gives the download up. */
  noImage: "dfu-noexist",
} as const;

/** Every message of the firmware section, as a hub dispatches them. */
export type DfuMessage = FirmwareRequest | ReadRequest | DfuReportRequest;
export const DFU_MESSAGE_TYPES: readonly DfuMessage["type"][] = ["firmware", "read", "dfu"];
