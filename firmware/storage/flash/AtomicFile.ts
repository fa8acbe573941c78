import type { FlashFs } from "./FlashFs.js";

/** The temporary name a file is written under before it replaces `name`. */
export function temporaryName(name: string): string {
  return `${name}.tmp`;
}

/**
 * Replaces a file so that after a power loss either the old or the new content is there, whole:
 * write a temporary file, sync it, rename it over the old one, sync the directory. Writes
 * `chunks` one by one so a large file is not copied into one buffer.
 */
export async function replaceFile(fs: FlashFs, name: string, chunks: Iterable<Uint8Array>): Promise<number> {
  const tmp = temporaryName(name);
  const file = await fs.open(tmp, "truncate");
  let size = 0;
  try {
    for (const chunk of chunks) {
      await file.append(chunk);
      size += chunk.length;
    }
    await file.sync();
  } catch (error) {
    await file.close().catch(() => undefined);
    await fs.remove(tmp).catch(() => undefined);
    throw error;
  }
  await file.close();
  await fs.rename(tmp, name);
  await fs.syncDir();
  return size;
}
