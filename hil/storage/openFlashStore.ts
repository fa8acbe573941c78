import { mkdir } from "node:fs/promises";
import { flashUnreadable } from "../../firmware/errors.js";
import { FlashKvStore, type FlashKvStoreOptions } from "../../firmware/storage/flash/FlashKvStore.js";
import { DirectoryLock } from "./DirectoryLock.js";
import { NodeFlashFs } from "./NodeFlashFs.js";

export type OpenFlashStoreOptions = Omit<FlashKvStoreOptions, "onClose">;

/**
 * A module's flash in directory `dir` on the real file system (created if missing), locked
 * against a second module until the store is closed. Pass the store to `Module.boot`, which opens
 * it (reading and repairing the flash).
 */
export async function openFlashStore(
  dir: string,
  options: OpenFlashStoreOptions = {},
): Promise<FlashKvStore> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw flashUnreadable(String((error as Error).message));
  }
  const lock = await DirectoryLock.acquire(dir);
  return new FlashKvStore(new NodeFlashFs(dir), { ...options, onClose: () => lock.release() });
}
