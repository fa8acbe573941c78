import { decodeBase64 } from "../../core/base64.js";
import { md5Hex } from "../../core/md5.js";
import {
  DFU_ERRORS,
  DFU_MAX_ERRORS,
  type DfuTarget,
  type FirmwareImage,
  type ReadReply,
} from "../../protocol/messages.js";
import { CARD_KEYS, type TimeZone } from "../config/CardSettings.js";
import { Environment } from "../env/Environment.js";
import { INSTALLED_FIRMWARE_KEY, releaseName } from "../FirmwareVersion.js";
import type { ModuleCore } from "../ModuleCore.js";
import { supplyState } from "../power/VoltagePolicy.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import { SimError } from "../SimError.js";
import { SyncFailure, type OpenSession } from "../sync/SyncEngine.js";
import { IMAGE_OBJECT, type DfuImages } from "./DfuImages.js";
import {
  dfuSwitches,
  outboardEnabled,
  outboardSettings,
  saveTarget,
  targetRecord,
  type TargetRecord,
} from "./DfuRecords.js";
import { inDfuPeriod, parseDfuPeriod } from "./dfuPeriod.js";
import { MODULE_IMAGE_HEADER_BYTES, moduleImageRelease } from "./ModuleFirmwareImage.js";

/** Re-reads of a chunk that arrived damaged before the attempt counts as an error. */
const CHUNK_RETRIES = 2;

/** The status of a download under way. */
export const progress = (read: number, length: number) =>
  `downloading: ${length > 0 ? Math.floor((read * 100) / length) : 100}% (${read} of ${length} bytes)`;

/** What a session's download of a target came to. */
export interface DownloadResult {
  /** Bytes of the session's budget it spent. */
  readonly spent: number;
  /** The module installed its own new firmware: it restarts into it after the session. */
  readonly installed: boolean;
}

/**
 * Downloading one target's image in a sync session (`read` messages), in chunks that are durable
 * in flash before the target's record says so, so that a download resumes where it stopped across
 * sessions, restarts and power losses; then verifying it by MD5 and handing it on: a host image
 * waits for the host, a module image is installed.
 */
export class DfuDownload {
  readonly #module: ModuleCore;
  readonly #images: DfuImages;
  readonly #readBytes: number;
  #disposed = false;

  /** `readBytes`: bytes each `read` asks for. */
  constructor(module: ModuleCore, images: DfuImages, readBytes: number) {
    this.#module = module;
    this.#images = images;
    this.#readBytes = readBytes;
  }

  dispose(): void {
    this.#disposed = true;
  }

  /** Downloads what it may of a target's image this session, within `budget` bytes. */
  async run(session: OpenSession, target: DfuTarget, budget: number): Promise<DownloadResult> {
    const module = this.#module;
    const r = await module.exclusive(() => targetRecord(module.notebox, target));
    const image = r.image;
    if (r.mode !== "downloading" || !image) return { spent: 0, installed: false };
    const blocked = await module.exclusive(() => this.#waiting(target, image));
    if (blocked) return { spent: 0, installed: false };
    let read = await this.#open(target, image, r);
    if (read === undefined) return { spent: 0, installed: false };
    let spent = 0;
    let damaged = 0;
    while (!this.#disposed && read < image.length && spent < budget) {
      const n = Math.min(this.#readBytes, image.length - read, budget - spent);
      const data = await this.#read(session, target, image, read, n);
      if (data === "gone") return { spent, installed: false };
      if (data === "damaged") {
        damaged++;
        module.log.warn("a firmware chunk arrived damaged", { target, offset: read, attempt: damaged });
        if (damaged <= CHUNK_RETRIES) continue;
        await this.#fail(target, image, `the chunk at ${read} arrived damaged ${damaged} times`, false);
        return { spent, installed: false };
      }
      damaged = 0;
      if (!(await this.#store(target, image, read, data))) break;
      read += n;
      spent += n;
      if (read < image.length && (await module.exclusive(() => this.#waiting(target, image)))) break;
    }
    const installed = read >= image.length && !this.#disposed && (await this.#finish(target, image));
    await this.#images.tidy(target);
    return { spent, installed };
  }

  /**
   * Opens the image file to continue where the record says the download stands: what the record
   * says is durable is what counts, and a tail written after it is cut off. Returns the offset to
   * read from, or undefined when the flash has no room for the image (the update fails).
   */
  async #open(target: DfuTarget, image: FirmwareImage, r: TargetRecord): Promise<number | undefined> {
    const module = this.#module;
    const images = this.#images.store!;
    const object = IMAGE_OBJECT[target];
    let read: number;
    try {
      read = await this.#images.run(async () => {
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
        return undefined;
      }
      throw error;
    }
    if (read !== (r.read ?? 0)) {
      await module.exclusive(() => {
        const now = targetRecord(module.notebox, target);
        if (now.image?.name === image.name)
          saveTarget(module.notebox, target, { ...now, read }, module.noteTime());
      });
    }
    return read;
  }

  /**
   * Reads `n` bytes of the image from the hub at `offset`: the bytes, `damaged` when they did not
   * arrive intact, `gone` when the hub no longer has the image (the update failed).
   */
  async #read(
    session: OpenSession,
    target: DfuTarget,
    image: FirmwareImage,
    offset: number,
    n: number,
  ): Promise<Uint8Array | "damaged" | "gone"> {
    let reply: ReadReply;
    try {
      reply = await session.exchange<ReadReply>({
        type: "read",
        target,
        name: image.name,
        offset,
        length: n,
      });
    } catch (error) {
      if (error instanceof SyncFailure && error.message.includes(`{${DFU_ERRORS.noImage}}`)) {
        await this.#fail(target, image, "the hub no longer has the image", true);
        return "gone";
      }
      throw error;
    }
    const data = typeof reply.data === "string" ? decodeBase64(reply.data) : undefined;
    if (!data || data.length !== n || reply.offset !== offset || md5Hex(data) !== reply.md5) return "damaged";
    return data;
  }

  /**
   * Appends a chunk to the image file, then records it as durable; false when the download ended
   * meanwhile (stopped, cancelled, its image deleted).
   */
  async #store(target: DfuTarget, image: FirmwareImage, offset: number, data: Uint8Array): Promise<boolean> {
    const module = this.#module;
    const images = this.#images.store!;
    const object = IMAGE_OBJECT[target];
    const stored = await this.#images.run(async () => {
      if (!images.has(object)) return false;
      await images.append(object, offset, data);
      return true;
    });
    const at = offset + data.length;
    return (
      stored &&
      (await module.exclusive(() => {
        const now = targetRecord(module.notebox, target);
        if (now.mode !== "downloading" || now.image?.name !== image.name) return false;
        saveTarget(
          module.notebox,
          target,
          { ...now, read: at, status: progress(at, image.length) },
          module.noteTime(),
        );
        return true;
      }))
    );
  }

  /** Why downloads for a target may not run now, or undefined. */
  #blocked(target: DfuTarget): string | undefined {
    const module = this.#module;
    const sw = dfuSwitches(module.notebox)[target];
    if (sw?.off) return "downloads are off (dfu.status off)";
    if (sw?.vvalue) {
      const parsed = VoltageVariable.parse(sw.vvalue, "integer");
      const state = supplyState(module);
      if (parsed instanceof VoltageVariable && parsed.valueFor(state) === 0)
        return `downloads are off on ${state} supply (vvalue)`;
    }
    const period = new Environment(module.notebox).get("_dfu_period")?.text;
    if (period) {
      const parsed = parseDfuPeriod(period);
      const time = module.time();
      if (parsed && time !== undefined) {
        const minutes = module.notebox.config<TimeZone>(CARD_KEYS.timeZone)?.minutes ?? 0;
        if (!inDfuPeriod(parsed, time + minutes * 60)) return "outside the _dfu_period window";
      } else if (!parsed) module.log.warn("_dfu_period is not DDDDDDD,HH,N: ignored", { value: period });
    }
    return undefined;
  }

  /** In a turn: a download that may not run now says why in its status; true when it waits. */
  #waiting(target: DfuTarget, image: FirmwareImage): boolean {
    const why = this.#blocked(target);
    if (!why) return false;
    const r = targetRecord(this.#module.notebox, target);
    const status = `waiting: ${why}`;
    if (r.image?.name === image.name && r.status !== status) {
      saveTarget(this.#module.notebox, target, { ...r, status }, this.#module.noteTime());
    }
    return true;
  }

  /**
   * The whole image is in flash: verify it, then hand it on (host) or install it (module).
   * Returns true when the module installed its own new firmware.
   */
  async #finish(target: DfuTarget, image: FirmwareImage): Promise<boolean> {
    const images = this.#images.store!;
    const object = IMAGE_OBJECT[target];
    const md5 = await this.#images.run(() => images.md5(object));
    if (md5 !== image.md5) {
      await this.#fail(
        target,
        image,
        `the downloaded image's MD5 ${md5} is not the hub's ${image.md5}`,
        false,
      );
      return false;
    }
    if (target === "user") {
      await this.#module.exclusive(() => this.#hostImageReady(image));
      return false;
    }
    const header = await this.#images.run(() => images.read(object, 0, MODULE_IMAGE_HEADER_BYTES));
    const installed = await this.#module.exclusive(() => this.#install(image, header));
    await this.#images.drop("card");
    return installed;
  }

  /** In a turn: a verified host image waits for the host, or for an outboard update. */
  #hostImageReady(image: FirmwareImage): void {
    const module = this.#module;
    const r = targetRecord(module.notebox, "user");
    if (r.image?.name !== image.name) return;
    const outboard = outboardEnabled(outboardSettings(module.notebox), module.clock.now());
    const mode = outboard ? "outboard-ready" : "ready";
    const why = outboard
      ? "downloaded and verified; an outboard update will write it to the host"
      : "downloaded and verified; ready for the host (dfu.get)";
    saveTarget(module.notebox, "user", { ...r, mode, read: image.length, status: why }, module.noteTime(), {
      mode,
      status: why,
    });
  }

  /**
   * In a turn: installs a verified module image whose header names a release for this module
   * (the release the module runs after its restart), or refuses it; true when it installed it.
   */
  #install(image: FirmwareImage, header: Uint8Array): boolean {
    const module = this.#module;
    const box = module.notebox;
    const now = module.noteTime();
    let r = targetRecord(box, "card");
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
    const parsed = moduleImageRelease(header, module.variant.target);
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
    module.log.info("module firmware installed", { version });
    return true;
  }

  /** The attempt failed: the image goes; `final` (or too many errors) ends the update in error. */
  async #fail(target: DfuTarget, image: FirmwareImage, why: string, final: boolean): Promise<void> {
    const module = this.#module;
    await module.exclusive(() => {
      const r = targetRecord(module.notebox, target);
      if (r.image?.name !== image.name) return;
      const errors = final ? DFU_MAX_ERRORS : Math.min(DFU_MAX_ERRORS, (r.errors ?? 0) + 1);
      saveTarget(
        module.notebox,
        target,
        { ...r, mode: "error", errors, read: undefined, taken: undefined, status: why },
        module.noteTime(),
        { mode: "error", status: why },
      );
    });
    module.log.warn("firmware download failed", { target, why });
    await this.#images.drop(target);
  }
}
