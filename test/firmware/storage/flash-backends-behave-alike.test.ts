import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FlashFsError, type FlashFs } from "../../../firmware/storage/flash/FlashFs.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { NodeFlashFs } from "../../../hil/storage/NodeFlashFs.js";

const bytes = (...b: number[]) => new Uint8Array(b);
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const backends: [string, () => Promise<FlashFs>][] = [
  ["memory", async () => new MemoryFlashFs()],
  ["power-loss (powered)", async () => new PowerLossFlashFs()],
  [
    "Node file system",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "cardsim-flashfs-"));
      dirs.push(dir);
      return new NodeFlashFs(dir);
    },
  ],
];

describe.each(backends)("the %s flash backend", (_name, make) => {
  it("creates, appends, reads and sizes files", async () => {
    const fs = await make();
    expect(await fs.list()).toEqual([]);
    expect(await fs.read("a")).toBeUndefined();
    const file = await fs.open("a", "truncate");
    expect(file.size).toBe(0);
    await file.append(bytes(1, 2, 3));
    await file.append(bytes(4));
    await file.sync();
    expect(file.size).toBe(4);
    await file.close();
    expect(await fs.read("a")).toEqual(bytes(1, 2, 3, 4));
    await fs.syncDir();
    expect(await fs.list()).toEqual(["a"]);
  });

  it("reads a range of a file and tells its size without reading it", async () => {
    const fs = await make();
    expect(await fs.readRange("a", 0, 4)).toBeUndefined();
    expect(await fs.size("a")).toBeUndefined();
    const file = await fs.open("a", "truncate");
    await file.append(bytes(1, 2, 3, 4, 5, 6));
    await file.sync();
    await file.close();
    expect(await fs.size("a")).toBe(6);
    expect(await fs.readRange("a", 2, 3)).toEqual(bytes(3, 4, 5));
    expect(await fs.readRange("a", 4, 10)).toEqual(bytes(5, 6));
    expect(await fs.readRange("a", 9, 2)).toEqual(bytes());
  });

  it("appends to an existing file at its end, and truncates it", async () => {
    const fs = await make();
    const first = await fs.open("a", "truncate");
    await first.append(bytes(1, 2, 3));
    await first.close();
    const again = await fs.open("a", "existing");
    expect(again.size).toBe(3);
    await again.truncate(1);
    await again.append(bytes(9));
    await again.sync();
    await again.close();
    expect(await fs.read("a")).toEqual(bytes(1, 9));
    const emptied = await fs.open("a", "truncate");
    await emptied.close();
    expect(await fs.read("a")).toEqual(bytes());
  });

  it("renames over an existing file and removes files, missing ones included", async () => {
    const fs = await make();
    for (const [name, value] of [
      ["a", 1],
      ["b", 2],
    ] as const) {
      const file = await fs.open(name, "truncate");
      await file.append(bytes(value));
      await file.close();
    }
    await fs.rename("a", "b");
    expect(await fs.list()).toEqual(["b"]);
    expect(await fs.read("b")).toEqual(bytes(1));
    await fs.remove("b");
    await fs.remove("never-there");
    await fs.syncDir();
    expect(await fs.list()).toEqual([]);
  });

  it("reports a missing file as not-found", async () => {
    const fs = await make();
    const error = await fs.open("missing", "existing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlashFsError);
    expect((error as FlashFsError).code).toBe("not-found");
    await expect(fs.rename("missing", "x")).rejects.toMatchObject({ code: "not-found" });
  });
});

describe("a flash losing power", () => {
  async function written(fs: PowerLossFlashFs, name: string, synced: number[], unsynced: number[]) {
    const file = await fs.open(name, "truncate");
    await file.append(Uint8Array.from(synced));
    await file.sync();
    await fs.syncDir();
    if (unsynced.length > 0) await file.append(Uint8Array.from(unsynced));
    return file;
  }

  it("keeps only synced bytes and synced directory entries (drop-unsynced)", async () => {
    const fs = new PowerLossFlashFs();
    await written(fs, "a", [1, 2], [3, 4]);
    const b = await fs.open("b", "truncate");
    await b.append(bytes(7));
    await b.sync(); // synced data, but its directory entry never was
    fs.powerFail();
    await expect(fs.list()).rejects.toMatchObject({ code: "power-lost" });
    fs.powerUp("drop-unsynced");
    expect(await fs.list()).toEqual(["a"]);
    expect(await fs.read("a")).toEqual(bytes(1, 2));
  });

  it("tears the last unsynced write where it is told to (torn-write)", async () => {
    for (const kept of [0, 1, 2, 3]) {
      const fs = new PowerLossFlashFs();
      await written(fs, "a", [1, 2], [3, 4, 5]);
      fs.powerFail();
      fs.powerUp("torn-write", { tear: () => kept });
      expect(await fs.read("a")).toEqual(Uint8Array.from([1, 2, 3, 4, 5].slice(0, 2 + kept)));
    }
  });

  it("undoes directory changes since the last directory sync (rename-lost)", async () => {
    const fs = new PowerLossFlashFs();
    await written(fs, "old", [1], []);
    const tmp = await fs.open("new.tmp", "truncate");
    await tmp.append(bytes(2));
    await tmp.sync();
    await fs.rename("new.tmp", "old");
    fs.powerFail();
    fs.powerUp("rename-lost");
    expect(await fs.list()).toEqual(["old"]);
    expect(await fs.read("old")).toEqual(bytes(1));
  });

  it("fails the chosen step: the power goes, or just that operation fails", async () => {
    const fs = new PowerLossFlashFs();
    const file = await written(fs, "a", [1], []);
    fs.failAtStep(fs.steps + 1, "full");
    await expect(file.append(bytes(2))).rejects.toMatchObject({ code: "full" });
    await file.append(bytes(3));
    expect(await fs.read("a")).toEqual(bytes(1, 3));
    fs.failAtStep(fs.steps + 1, "io");
    await expect(file.append(bytes(5))).rejects.toMatchObject({ code: "io" });
    expect(await fs.read("a")).toEqual(bytes(1, 3, 5)); // in the page cache, not synced
    fs.failAtStep(fs.steps + 1);
    await expect(file.append(bytes(4))).rejects.toMatchObject({ code: "power-lost" });
    expect(fs.powered).toBe(false);
    await expect(fs.read("a")).rejects.toMatchObject({ code: "power-lost" });
  });

  it("invalidates handles opened before the power cycle", async () => {
    const fs = new PowerLossFlashFs();
    const file = await written(fs, "a", [1], []);
    fs.powerFail();
    fs.powerUp("drop-unsynced");
    await expect(file.append(bytes(2))).rejects.toThrow(/stale file handle/);
  });

  it("copies itself, power state included, so each way a crash ends can be tried", async () => {
    const fs = new PowerLossFlashFs();
    await written(fs, "a", [1], [2]);
    fs.powerFail();
    const torn = fs.clone();
    const dropped = fs.clone();
    torn.powerUp("torn-write", { tear: (n) => n });
    dropped.powerUp("drop-unsynced");
    expect(await torn.read("a")).toEqual(bytes(1, 2));
    expect(await dropped.read("a")).toEqual(bytes(1));
  });
});

describe("durable writes (O_DSYNC)", () => {
  it("keep an append that completed, without a sync, through a power loss", async () => {
    const fs = new PowerLossFlashFs();
    const created = await fs.open("a", "truncate");
    await created.sync();
    await fs.syncDir();
    const file = await fs.open("a", "existing", { durableWrites: true });
    expect(file.writesAreDurable).toBe(true);
    await file.append(bytes(1, 2));
    fs.failAtStep(fs.steps + 1); // power lost during the next append
    await expect(file.append(bytes(3))).rejects.toMatchObject({ code: "power-lost" });
    fs.powerUp("drop-unsynced");
    expect(await fs.read("a")).toEqual(bytes(1, 2));
  });

  it("are what the Node backend gives where the platform has O_DSYNC", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-flashfs-"));
    dirs.push(dir);
    const fs = new NodeFlashFs(dir);
    await (await fs.open("a", "truncate")).close();
    const file = await fs.open("a", "existing", { durableWrites: true });
    expect(file.writesAreDurable).toBe(process.platform !== "win32");
    await file.append(bytes(7, 8));
    await file.close();
    expect(await fs.read("a")).toEqual(bytes(7, 8));
  });
});
