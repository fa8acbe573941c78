import type { JsonObject } from "../../core/json.js";

/** Firmware as the API names its kinds: the host MCU's, or the module's own. */
export type FirmwareType = "host" | "notecard";
export const FIRMWARE_TYPES: readonly FirmwareType[] = ["host", "notecard"];

/** An uploaded image of a project (its bytes are stored beside it, in chunks). */
export interface FirmwareRecord {
  projectUid: string;
  type: FirmwareType;
  /** The stored name, unique per project and type: `name$YYYYMMDDhhmmss.ext`. */
  filename: string;
  /** The name it was uploaded under. */
  source: string;
  length: number;
  /** Lowercase hex MD5 and the CRC-32 (IEEE) of the bytes. */
  md5: string;
  crc32: number;
  /** Epoch ms of the upload and of the last metadata change. */
  created: number;
  modified: number;
  version: string | null;
  notes: string | null;
  /** FirmwareInfo `info`: what the image carries (`firmware::info:` JSON) until the API replaces it. */
  info: JsonObject | null;
  /** What the image itself carries, kept when `info` is replaced (built, org, product, target ...). */
  image: JsonObject | null;
  target: string | null;
  published: boolean;
  /** The user who uploaded it, when known. */
  createdBy: string | null;
}

/** Where an update request stands on the hub. */
export type DfuRequestState = "pending" | "active" | "completed" | "failed" | "cancelled";

/** One step of an update request (DeviceDfuStateMachineNode; `when` in epoch ms). */
export interface DfuHistoryNode {
  when: number;
  phase: string;
  status: string;
  description: string;
}

/** A request for one device to take one image (the API's update action, or `_fw`/`_fwc`). */
export interface DfuRequestRecord {
  id: number;
  projectUid: string;
  deviceUid: string;
  type: FirmwareType;
  filename: string;
  /** Epoch ms. */
  initiated: number;
  /** The version the device ran when asked, and the image's version. */
  currentVersion: string | null;
  requestedVersion: string | null;
  state: DfuRequestState;
  updates: DfuHistoryNode[];
  /** `api`: the update action; `env`: the `_fw`/`_fwc` environment variable. */
  source: "api" | "env";
  /** Highest report step sequence number merged (a repeated report adds nothing). */
  seq: number;
}

/**
 * Firmware images and DFU requests, as the hub keeps them. Images are written whole and read in
 * ranges (a module downloads them in pieces); every method is atomic on its own.
 */
export interface FirmwareStore {
  /**
   * Stores an image's bytes under its name (replacing any stored there); `putImage` then makes
   * it an image. Call both in one transaction.
   */
  putContent(projectUid: string, type: FirmwareType, filename: string, content: Uint8Array): Promise<void>;
  /** Stores a new image's record; throws `conflict` when the project already has one of that name and type. */
  putImage(record: FirmwareRecord): Promise<void>;
  getImage(projectUid: string, type: FirmwareType, filename: string): Promise<FirmwareRecord | undefined>;
  /** A project's images (of one type, when given), oldest first. */
  listImages(projectUid: string, type?: FirmwareType): Promise<FirmwareRecord[]>;
  /** Up to `length` bytes from `offset` (fewer at the end); undefined when there is no such image. */
  readImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    offset: number,
    length: number,
  ): Promise<Uint8Array | undefined>;
  /** Changes metadata; undefined when there is no such image. */
  updateImage(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    changes: Partial<Pick<FirmwareRecord, "info" | "notes" | "version" | "modified">>,
  ): Promise<FirmwareRecord | undefined>;
  /** False when there was none. */
  deleteImage(projectUid: string, type: FirmwareType, filename: string): Promise<boolean>;

  addRequest(request: Omit<DfuRequestRecord, "id">): Promise<DfuRequestRecord>;
  /** The device's newest request of that type. */
  latestRequest(
    projectUid: string,
    deviceUid: string,
    type: FirmwareType,
  ): Promise<DfuRequestRecord | undefined>;
  /** The device's requests of that type, newest first. */
  listRequests(projectUid: string, deviceUid: string, type: FirmwareType): Promise<DfuRequestRecord[]>;
  updateRequest(
    id: number,
    changes: Partial<Pick<DfuRequestRecord, "state" | "updates" | "seq">>,
  ): Promise<void>;
}
