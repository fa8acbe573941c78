import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { Module } from "../../../firmware/Module.js";
import { MemoryLog } from "../../../firmware/ModuleLog.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { Notebox } from "../../../firmware/storage/Notebox.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { openFlashStore } from "../../../hil/storage/openFlashStore.js";

const CHILD = join(import.meta.dirname, "support", "flashChild.ts");
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "cardsim-flash-"));
  roots.push(root);
  return join(root, "flash");
}

/** Runs flashChild.ts and resolves with its first JSON line (the child keeps running if `hold`). */
function child(dir: string, options: { hold?: boolean; uid?: number } = {}) {
  const proc: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", CHILD, dir, options.hold ? "hold" : ""],
    {
      stdio: ["pipe", "pipe", "inherit"],
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
    },
  );
  const line = new Promise<{ ok: boolean; error?: string; records?: number; pid?: number }>(
    (resolve, reject) => {
      createInterface({ input: proc.stdout! }).once("line", (l) => resolve(JSON.parse(l)));
      proc.once("error", reject);
      // A child that could not even start (e.g. cannot read the checkout) must fail, not hang.
      proc.once("exit", (code) => reject(new Error(`flash child exited (${code}) without a result`)));
    },
  );
  const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  return { proc, line, exited };
}

/** Whether `uid` can read this checkout (and so run the child script). */
function canRunAs(uid: number): boolean {
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(CHILD)})`], {
    uid,
    gid: uid,
    stdio: "ignore",
  });
  return probe.status === 0;
}

async function bootModule(store: Awaited<ReturnType<typeof openFlashStore>>, log = new MemoryLog()) {
  return Module.boot({ clock: new FakeClock(), random: new SeededRandom(7), store, log });
}

describe("the flash in a directory on the real file system", () => {
  it("creates the directory and keeps a module's notes and identity across restarts", async () => {
    const dir = await tempDir();
    const first = await bootModule(await openFlashStore(dir));
    const device = first.deviceUid;
    await first.notebox.transact(() => first.notebox.appendToQueue("data.qo", { body: { n: 1 }, time: 5 }));
    await first.close();

    const second = await bootModule(await openFlashStore(dir));
    expect(second.deviceUid).toBe(device);
    expect(second.notebox.file("data.qo")?.oldest()?.body).toEqual({ n: 1 });
    await second.close();
    expect((await readdir(dir)).sort()).toEqual(["flash.json", "journal.1"]);
  });

  it("lets only one module at a time use a flash directory", async () => {
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "LOCK.999999999"), "999999999\n"); // left by a process killed mid-lock
    const store = await openFlashStore(dir);
    expect((await readdir(dir)).sort()).toEqual(["LOCK"]);
    await expect(openFlashStore(dir)).rejects.toThrow(/is in use by process \d+/);
    await store.close();
    const again = await openFlashStore(dir);
    await again.close();
  });

  it("refuses a flash held by another running process, and takes over once it is gone", async () => {
    const dir = await tempDir();
    const holder = child(dir, { hold: true });
    const held = await holder.line;
    expect(held.ok).toBe(true);
    await expect(openFlashStore(dir)).rejects.toThrow(new RegExp(`in use by process ${held.pid}`));
    holder.proc.kill("SIGKILL"); // dies holding the lock
    await holder.exited;
    expect(await readFile(join(dir, "LOCK"), "utf8")).toBe(`${held.pid}\n`);
    const store = await openFlashStore(dir);
    await store.open();
    await store.close();
  });

  it("recovers a truncated journal with a report, then boots clean", async () => {
    const dir = await tempDir();
    const module = await bootModule(await openFlashStore(dir));
    for (let i = 0; i < 3; i++)
      await module.notebox.transact(() => module.notebox.appendToQueue("data.qo", { body: { i }, time: 1 }));
    await module.close();
    const journal = join(dir, "journal.1");
    await truncate(journal, (await readFile(journal)).length - 5);

    const log = new MemoryLog();
    const recovered = await bootModule(await openFlashStore(dir), log);
    expect(recovered.notebox.file("data.qo")!.total).toBe(2);
    expect(recovered.notebox.file("_health.qo")!.oldest()!.body!["text"]).toMatch(/torn/);
    expect(log.lines.some((l) => l.level === "warn")).toBe(true);
    await recovered.close();
    const log2 = new MemoryLog();
    await (await bootModule(await openFlashStore(dir), log2)).close();
    expect(log2.lines.some((l) => l.level === "warn")).toBe(false);
  });

  it("recovers a bit-flipped journal, keeping the damaged file", async () => {
    const dir = await tempDir();
    const box = await Notebox.open(await openFlashStore(dir));
    for (let i = 0; i < 5; i++) await box.transact(() => box.setConfig(`k${i}`, "v".repeat(20)));
    await box.store.close();
    const journal = join(dir, "journal.1");
    const bytes = await readFile(journal);
    bytes[bytes.length - 100]! ^= 0x40;
    await writeFile(journal, bytes);
    const store = await openFlashStore(dir);
    const snapshot = await store.open();
    expect(snapshot.records.size).toBe(4);
    expect(snapshot.recovery?.droppedRecords).toBe(1);
    await store.close();
    expect((await readdir(dir)).sort()).toEqual(["flash.json", "journal.1.damaged", "journal.2"]);
  });

  it("says clearly when the directory cannot be used, every time, without changing anything", async (ctx) => {
    if (process.platform === "win32") return;
    if (process.getuid?.() === 0 && !canRunAs(65534)) {
      ctx.skip(
        "running as root in a checkout the unprivileged user cannot read: permissions cannot be tried",
      );
    }
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    await chmod(join(dir, ".."), 0o755);
    await chmod(dir, 0o700);
    if (process.getuid?.() === 0) {
      // root ignores permissions: try as an unprivileged user instead.
      for (let attempt = 0; attempt < 2; attempt++) {
        const run = child(dir, { uid: 65534 });
        const result = await run.line;
        expect(await run.exited).toBe(1);
        expect(result).toEqual({
          ok: false,
          error: expect.stringMatching(/^cannot open flash: EACCES: permission denied/),
        });
      }
    } else {
      await chmod(dir, 0o000);
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(openFlashStore(dir).then((s) => s.open())).rejects.toThrow(/^cannot open flash: EACCES/);
      }
      await chmod(dir, 0o700);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("says clearly when the flash path is a file", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, ".."), { recursive: true });
    await writeFile(dir, "not a directory");
    await expect(openFlashStore(dir)).rejects.toThrow(
      /^cannot open flash: EEXIST|^cannot open flash: ENOTDIR/,
    );
  });
});
