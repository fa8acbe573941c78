import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { ServiceError } from "../ServiceError.js";
import type { FirmwareRecord, FirmwareType } from "../store/FirmwareStore.js";
import type { HubStore } from "../store/HubStore.js";
import { StoreError } from "../store/StoreError.js";
import { digests, embeddedFirmwareInfo, infoString, storedFirmwareName, versionOf } from "./firmwareInfo.js";

/** The largest image the hub takes (a module's flash holds 8 MiB of images by default). */
export const MAX_FIRMWARE_BYTES = 32 * 1024 * 1024;
const MAX_NAME = 200;

export interface FirmwareUpload {
  /** The name the image is uploaded under (stored with its upload time added). */
  readonly source: string;
  readonly content: Uint8Array;
  /** Overrides the version the image carries. */
  readonly version?: string;
  readonly notes?: string;
  readonly createdBy?: string | null;
  /** The content's MD5 and CRC-32 when the caller took them already (as the bytes arrived). */
  readonly digests?: { readonly md5: string; readonly crc32: number };
}

/** Get Available Firmware Information's filters and order. */
export interface FirmwareQuery {
  readonly type?: FirmwareType;
  readonly product?: string;
  readonly version?: string;
  readonly target?: string;
  /** The stored name, or the name it was uploaded under. */
  readonly filename?: string;
  readonly md5?: string;
  /** List unpublished images too (every image uploaded here is published). */
  readonly unpublished?: boolean;
  readonly sortBy?: "created" | "name" | "version" | "length";
  readonly sortOrder?: "asc" | "desc";
}

const notFound = (type: FirmwareType, filename: string): StoreError =>
  new StoreError("not-found", `The requested resource could not be found: ${type} firmware ${filename}`);

/**
 * A project's firmware images in the hub's store (never loose files): uploads are stored under a
 * versioned name with their digests and the description they carry, read back whole or in ranges.
 */
export class FirmwareService {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
  ) {}

  async upload(projectUid: string, type: FirmwareType, upload: FirmwareUpload): Promise<FirmwareRecord> {
    const source = upload.source;
    // eslint-disable-next-line no-control-regex
    if (source === "" || source.length > MAX_NAME || /[\u0000-\u001f\u007f/\\]/.test(source)) {
      throw new ServiceError("invalid", source, `firmware name must be 1-${MAX_NAME} printable characters`);
    }
    if (upload.content.length === 0) throw new ServiceError("invalid", source, "the firmware image is empty");
    if (upload.content.length > MAX_FIRMWARE_BYTES) {
      throw new ServiceError(
        "invalid",
        source,
        `a firmware image may be at most ${MAX_FIRMWARE_BYTES} bytes`,
      );
    }
    const image = embeddedFirmwareInfo(upload.content) ?? null;
    const { md5, crc32 } = upload.digests ?? digests(upload.content);
    return this.store.transaction(
      async () => {
        // Two uploads of one name within a second: the later one is stamped a second on.
        let at = this.clock.now();
        let filename = storedFirmwareName(source, at);
        while (await this.store.firmware.getImage(projectUid, type, filename)) {
          at += 1000;
          filename = storedFirmwareName(source, at);
        }
        await this.store.firmware.putContent(projectUid, type, filename, upload.content);
        const now = this.clock.now();
        const record: FirmwareRecord = {
          projectUid,
          type,
          filename,
          source,
          length: upload.content.length,
          md5,
          crc32,
          created: now,
          modified: now,
          version: upload.version || versionOf(image) || null,
          notes: upload.notes || null,
          info: image,
          image,
          target: infoString(image, "target") ?? null,
          published: true,
          createdBy: upload.createdBy ?? null,
        };
        await this.store.firmware.putImage(record);
        return record;
      },
      { durable: true },
    );
  }

  async get(projectUid: string, type: FirmwareType, filename: string): Promise<FirmwareRecord> {
    const record = await this.store.firmware.getImage(projectUid, type, filename);
    if (!record) throw notFound(type, filename);
    return record;
  }

  /** The image's bytes, whole. */
  async download(
    projectUid: string,
    type: FirmwareType,
    filename: string,
  ): Promise<{ record: FirmwareRecord; content: Uint8Array }> {
    const record = await this.get(projectUid, type, filename);
    const content = await this.store.firmware.readImage(projectUid, type, filename, 0, record.length);
    if (!content) throw notFound(type, filename);
    return { record, content };
  }

  /** Up to `length` bytes from `offset`. */
  async read(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    offset: number,
    length: number,
  ): Promise<Uint8Array> {
    const content = await this.store.firmware.readImage(projectUid, type, filename, offset, length);
    if (!content) throw notFound(type, filename);
    return content;
  }

  async list(projectUid: string, query: FirmwareQuery = {}): Promise<FirmwareRecord[]> {
    const all = await this.store.firmware.listImages(projectUid, query.type);
    const matches = all.filter(
      (r) =>
        (query.unpublished || r.published) &&
        (query.product === undefined || infoString(r.image, "product") === query.product) &&
        (query.version === undefined || r.version === query.version) &&
        (query.target === undefined || r.target === query.target) &&
        (query.filename === undefined || r.filename === query.filename || r.source === query.filename) &&
        (query.md5 === undefined || r.md5 === query.md5.toLowerCase()),
    );
    const by = query.sortBy ?? "created";
    const sign = (query.sortOrder ?? "desc") === "asc" ? 1 : -1;
    const key = (r: FirmwareRecord): string | number =>
      by === "name"
        ? r.filename
        : by === "version"
          ? (r.version ?? "")
          : by === "length"
            ? r.length
            : r.created;
    return matches.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const order =
        typeof ka === "number" && typeof kb === "number"
          ? ka - kb
          : String(ka).localeCompare(String(kb), "en", { numeric: true });
      return sign * order || a.filename.localeCompare(b.filename);
    });
  }

  /** Update Firmware: only the fields given change. */
  async update(
    projectUid: string,
    type: FirmwareType,
    filename: string,
    changes: { info?: JsonObject; notes?: string; version?: string },
  ): Promise<FirmwareRecord> {
    const updated = await this.store.firmware.updateImage(projectUid, type, filename, {
      ...(changes.info !== undefined ? { info: changes.info } : {}),
      ...(changes.notes !== undefined ? { notes: changes.notes } : {}),
      ...(changes.version !== undefined ? { version: changes.version } : {}),
      modified: this.clock.now(),
    });
    if (!updated) throw notFound(type, filename);
    return updated;
  }

  async delete(projectUid: string, type: FirmwareType, filename: string): Promise<void> {
    if (!(await this.store.firmware.deleteImage(projectUid, type, filename))) throw notFound(type, filename);
  }
}
