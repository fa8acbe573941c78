import type { DfuTarget } from "../../protocol/messages.js";
import type { ModuleCore } from "../ModuleCore.js";
import type { LargeObjectStore } from "../storage/LargeObjectStore.js";
import { targetRecord, type DfuMode } from "./DfuRecords.js";

/** The large objects (firmware/storage/LargeObjectStore) the images live in. */
export const IMAGE_OBJECT: Readonly<Record<DfuTarget, string>> = { user: "dfu-user", card: "dfu-card" };

/** Modes in which the module holds (part of) an image. */
const HOLDS_IMAGE = new Set<DfuMode>(["downloading", "ready", "outboard-ready"]);

/**
 * The firmware image files on the module's flash, one at a time: the download writes them, the
 * host's reads (`dfu.get`) and outboard updates read them, stops and failures delete them, and
 * none of these ever interleave. The store is read from the module at each use (undefined when
 * its flash has no room for images).
 */
export class DfuImages {
  readonly #module: Pick<ModuleCore, "images" | "notebox">;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(module: Pick<ModuleCore, "images" | "notebox">) {
    this.#module = module;
  }

  /** The module's image store (undefined when it has no room for images). */
  get store(): LargeObjectStore | undefined {
    return this.#module.images;
  }

  /** Runs `task` on the image files when no other task is using them. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Deletes a target's image (nothing happens on a module without room for images). */
  async drop(target: DfuTarget): Promise<void> {
    const images = this.#module.images;
    if (!images) return;
    await this.run(() => images.delete(IMAGE_OBJECT[target]));
  }

  /** Deletes an image no record holds (left by a stop, a factory reset, a cancelled download). */
  async tidy(target: DfuTarget): Promise<void> {
    const images = this.#module.images;
    if (!images || !images.has(IMAGE_OBJECT[target])) return;
    // A read of the record needs no turn; the lock keeps the image's writers out.
    if (!HOLDS_IMAGE.has(targetRecord(this.#module.notebox, target).mode)) await this.drop(target);
  }
}
