import { link, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { flashInUse, flashUnreadable } from "../../firmware/errors.js";

/** Directories locked by this process (a second store on the same flash would corrupt it). */
const heldHere = new Set<string>();

/**
 * Keeps two modules from using one flash directory: a `LOCK` file holding the owner's process
 * ID. A lock left by a process that no longer runs (killed, power cut) is taken over.
 */
export class DirectoryLock {
  private constructor(
    readonly dir: string,
    readonly path: string,
  ) {}

  static async acquire(dir: string): Promise<DirectoryLock> {
    const absolute = resolve(dir);
    if (heldHere.has(absolute)) throw flashInUse(absolute, process.pid);
    const path = join(absolute, "LOCK");
    // Written under a private name, then linked into place: LOCK never exists without its PID.
    const mine = `${path}.${process.pid}`;
    try {
      await writeFile(mine, `${process.pid}\n`);
    } catch (error) {
      throw flashUnreadable(String((error as Error).message));
    }
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await link(mine, path);
          heldHere.add(absolute);
          return new DirectoryLock(absolute, path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST")
            throw flashUnreadable(String((error as Error).message));
        }
        const owner = await lockOwner(path);
        if (owner !== undefined && owner !== process.pid && isRunning(owner))
          throw flashInUse(absolute, owner);
        // Stale: its owner is gone. Remove it and try again (another process may win the race).
        await unlink(path).catch(() => undefined);
      }
    } finally {
      await unlink(mine).catch(() => undefined);
      await removeAbandoned(absolute);
    }
    throw flashUnreadable(`could not take the lock ${path}`);
  }

  async release(): Promise<void> {
    heldHere.delete(this.dir);
    if ((await lockOwner(this.path)) === process.pid) await unlink(this.path).catch(() => undefined);
  }
}

/** Removes `LOCK.<pid>` files of processes killed while taking the lock. */
async function removeAbandoned(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const match = /^LOCK\.(\d+)$/.exec(name);
    if (match && Number(match[1]) !== process.pid && !isRunning(Number(match[1]))) {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}

async function lockOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
