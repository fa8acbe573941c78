import type { KvStore } from "../firmware/storage/KvStore.js";
import { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
import { openFlashStore } from "../hil/storage/openFlashStore.js";
import { flashDirectory, type FlashOptions } from "./flash.js";

/** The store a module command boots on: its flash directory (locked), or memory. */
export async function openModuleStore(options: FlashOptions): Promise<KvStore> {
  const dir = flashDirectory(options);
  if (!dir) return new MemoryKvStore(options.flashCapacity ? { capacity: options.flashCapacity } : {});
  return openFlashStore(dir, options.flashCapacity ? { capacity: options.flashCapacity } : {});
}
