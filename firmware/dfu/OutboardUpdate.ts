import { sleep } from "../../core/Clock.js";
import { Md5 } from "../../core/md5.js";
import { DFU_MAX_ERRORS, type FirmwareImage } from "../../protocol/messages.js";
import { storeRecord } from "../config/compactRecord.js";
import type { ModuleCore } from "../ModuleCore.js";
import { SensorTimer } from "../sensors/SensorTimer.js";
import { IMAGE_OBJECT, type DfuImages } from "./DfuImages.js";
import {
  DFU_KEYS,
  outboardEnabled,
  outboardSettings,
  saveTarget,
  targetRecord,
  type OutboardSettings,
} from "./DfuRecords.js";
import { OUTBOARD_CLASSES, type HostDfuLines, type OutboardClass } from "./HostDfuLines.js";

/** Bytes an outboard update sends at a time. */
const OUTBOARD_BLOCK = 4096;
/** How long the module holds the host in reset, and lets its bootloader start. */
const RESET_PULSE_MS = 10;
const BOOTLOADER_START_MS = 100;
/** An outboard update tells its progress every so many bytes written. */
const STATUS_EVERY = 64 * 1024;

/**
 * Outboard updates (`card.dfu`): the module writes a ready host image to the host's bootloader
 * itself, driving the host's RESET and BOOT lines and sending the image at the outboard serial
 * rate. One update at a time; one cut short (power, restart) starts again at the next boot.
 */
export class OutboardUpdate {
  readonly #module: ModuleCore;
  readonly #images: DfuImages;
  readonly #lines: HostDfuLines;
  readonly #baud: number;
  readonly #timer: SensorTimer;
  #running: Promise<void> | undefined;
  #disposed = false;

  constructor(module: ModuleCore, images: DfuImages, lines: HostDfuLines, baud: number) {
    this.#module = module;
    this.#images = images;
    this.#lines = lines;
    this.#baud = baud;
    this.#timer = new SensorTimer(module.clock);
  }

  dispose(): void {
    this.#disposed = true;
    this.#timer.clear();
  }

  settings(): OutboardSettings {
    return outboardSettings(this.#module.notebox);
  }

  /** `card.dfu` changed its settings: an update waiting for the host may start. */
  setSettings(settings: OutboardSettings): void {
    storeRecord(this.#module.notebox, DFU_KEYS.outboard, settings);
    this.kick();
  }

  /** Outboard updates are configured, on, and not paused. */
  enabled(): boolean {
    return outboardEnabled(this.settings(), this.#module.clock.now());
  }

  /**
   * At boot: an update cut short starts again, and a module set up for outboard updates resets
   * its host, unless told not to. A module with nothing under way takes no turn here.
   */
  async resume(): Promise<void> {
    const module = this.#module;
    if (targetRecord(module.notebox, "user").flashing) {
      await module.exclusive(() => {
        const r = targetRecord(module.notebox, "user");
        if (r.flashing) saveTarget(module.notebox, "user", { ...r, flashing: undefined }, module.noteTime());
      });
    }
    const o = this.settings();
    if (o.name !== undefined && o.on === true && !o.noReset && !this.#disposed) await this.#pulseReset();
    this.kick();
  }

  /** Starts an outboard update when a host image waits for one and it may run. */
  kick(): void {
    if (this.#running || this.#disposed || !this.#images.store) return;
    // Nothing to write, or no host class set: no turn is taken.
    const r = targetRecord(this.#module.notebox, "user");
    const o = this.settings();
    if (!r.image || (r.mode !== "ready" && r.mode !== "outboard-ready") || o.name === undefined || !o.on)
      return;
    const run = (async () => {
      const go = await this.#module.exclusive(() => this.#due());
      if (go) await this.#flashHost();
    })();
    this.#running = run;
    run
      .catch((error: unknown) => {
        if (!this.#disposed) this.#module.log.error("outboard update failed", { error: String(error) });
      })
      .finally(() => {
        if (this.#running === run) this.#running = undefined;
      });
  }

  /** In a turn: whether an outboard update should start now (a ready image turns outboard-ready). */
  #due(): boolean {
    const module = this.#module;
    const r = targetRecord(module.notebox, "user");
    const o = this.settings();
    if (o.offUntil !== undefined && o.offUntil > module.clock.now()) {
      this.#timer.set(o.offUntil - module.clock.now(), () => this.kick());
    }
    if (!this.enabled() || !r.image) return false;
    if (r.mode === "ready" && !r.taken) {
      const why = "ready; an outboard update will write it to the host";
      saveTarget(module.notebox, "user", { ...r, mode: "outboard-ready", status: why }, module.noteTime(), {
        mode: "outboard-ready",
        status: why,
      });
      return true;
    }
    return r.mode === "outboard-ready";
  }

  async #pulseReset(): Promise<void> {
    this.#lines.reset(true);
    await sleep(this.#module.clock, RESET_PULSE_MS);
    this.#lines.reset(false);
  }

  /**
   * Writes the ready host image to the host's bootloader: BOOT to the level the host class
   * selects its bootloader with, a RESET pulse, the image at the outboard rate, BOOT released and
   * another RESET into the new firmware. Cut short (power, restart), it starts again at boot.
   */
  async #flashHost(): Promise<void> {
    const start = await this.#module.exclusive(() => this.#begin());
    if (!start) return;
    const { image, name } = start;
    this.#lines.boot(OUTBOARD_CLASSES[name].bootHigh);
    await this.#pulseReset();
    await sleep(this.#module.clock, BOOTLOADER_START_MS);
    const md5 = await this.#sendImage(image);
    if (md5 === undefined || this.#disposed) return;
    this.#lines.boot(undefined);
    await this.#pulseReset();
    await this.#module.exclusive(() => this.#end(image, name, md5 === image.md5));
    await this.#images.drop("user");
  }

  /** In a turn: the update starts (the record says so), or undefined when it no longer should. */
  #begin(): { image: FirmwareImage; name: OutboardClass } | undefined {
    const module = this.#module;
    const r = targetRecord(module.notebox, "user");
    if (r.mode !== "outboard-ready" || !r.image) return undefined;
    const why = "outboard update: resetting the host into its bootloader";
    saveTarget(module.notebox, "user", { ...r, flashing: true, status: why }, module.noteTime(), {
      mode: "outboard-ready",
      status: why,
    });
    return { image: r.image, name: this.settings().name! };
  }

  /**
   * Sends the image to the host's bootloader block by block at the outboard rate, telling its
   * progress; returns the MD5 of what it sent, or undefined when the module went meanwhile.
   */
  async #sendImage(image: FirmwareImage): Promise<string | undefined> {
    const module = this.#module;
    const images = this.#images.store!;
    const md5 = new Md5();
    let lastStatus = 0;
    for (let offset = 0; offset < image.length; offset += OUTBOARD_BLOCK) {
      if (this.#disposed) return undefined;
      const bytes = await this.#images.run(() =>
        images.read(IMAGE_OBJECT.user, offset, Math.min(OUTBOARD_BLOCK, image.length - offset)),
      );
      if (bytes.length === 0) break;
      md5.update(bytes);
      await this.#lines.program?.(offset, bytes);
      // Ten bits a byte on the wire to the bootloader.
      await sleep(module.clock, Math.ceil((bytes.length * 10 * 1000) / this.#baud));
      const sent = offset + bytes.length;
      if (sent - lastStatus >= STATUS_EVERY || sent === image.length) {
        lastStatus = sent;
        await module.exclusive(() => this.#progress(image, sent));
      }
    }
    return md5.hex();
  }

  /** In a turn: how much of the image the host has. */
  #progress(image: FirmwareImage, sent: number): void {
    const r = targetRecord(this.#module.notebox, "user");
    if (r.image?.name !== image.name || !r.flashing) return;
    const why = `outboard update: ${Math.floor((sent * 100) / image.length)}% written to the host`;
    saveTarget(this.#module.notebox, "user", { ...r, status: why }, this.#module.noteTime());
  }

  /** In a turn: the update ended; `ok` when what was sent matched the image's MD5. */
  #end(image: FirmwareImage, name: OutboardClass, ok: boolean): void {
    const module = this.#module;
    const r = targetRecord(module.notebox, "user");
    if (r.image?.name !== image.name) return;
    const why = ok
      ? `the host was updated by an outboard update (${name})`
      : "the image read back from flash did not match its MD5; the host was not updated";
    const mode = ok ? "completed" : "error";
    saveTarget(
      module.notebox,
      "user",
      {
        ...r,
        mode,
        flashing: undefined,
        read: undefined,
        ...(ok ? {} : { errors: DFU_MAX_ERRORS }),
        status: why,
      },
      module.noteTime(),
      { mode, status: why },
    );
  }
}
