import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The file in the hub's directory holding the key project secrets are encrypted with. */
export const SECRET_KEY_FILE = "secrets.key";
const KEY_BYTES = 32;

/**
 * The hub's secrets key from `dir/secrets.key` (32 random bytes, made with mode 0600 at first
 * start). Hubs sharing one PostgreSQL database must be started with copies of the same file:
 * a secret sealed by one opens only under its key.
 */
export async function loadSecretKey(dir: string): Promise<Uint8Array> {
  const path = join(dir, SECRET_KEY_FILE);
  try {
    const key = await readFile(path);
    if (key.length !== KEY_BYTES) {
      throw new Error(
        `${path} holds ${key.length} bytes, not a ${KEY_BYTES}-byte secrets key; restore it or remove it (secrets stored under it are then lost)`,
      );
    }
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const key = randomBytes(KEY_BYTES);
  // "wx": two hubs starting on one directory at once keep the first one's key.
  try {
    await writeFile(path, key, { mode: 0o600, flag: "wx" });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadSecretKey(dir);
    throw error;
  }
}
