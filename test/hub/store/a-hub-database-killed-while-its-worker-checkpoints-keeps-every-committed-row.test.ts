import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { Changes } from "../../support/waiting.js";

const WRITER = fileURLToPath(new URL("./support/checkpointedWriter.ts", import.meta.url));

/**
 * Runs the writer until it has committed `rows` more rows, seen `checkpoints` checkpoints and the
 * log started again from its beginning `restarts` times, then kills it (-9).
 */
async function writeAndKill(
  path: string,
  rows: number,
  checkpoints: number,
  restarts: number,
): Promise<number[]> {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, path], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const changes = new Changes();
  const committed: number[] = [];
  let seen = 0;
  let restarted = 0;
  let stderr = "";
  let buffered = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === "checkpoint") seen++;
      else if (line === "restart") restarted++;
      else if (line.startsWith("n ")) committed.push(Number(line.slice(2)));
    }
    changes.fire();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("close", (_code, signal) => resolve(signal)),
  );
  void exited.then(changes.fire);
  await changes.until(
    () =>
      child.exitCode !== null || (committed.length >= rows && seen >= checkpoints && restarted >= restarts),
    `${rows} rows committed, ${checkpoints} checkpoints and ${restarts} restarts of the log`,
    60_000,
  );
  expect(child.exitCode, stderr).toBeNull();
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  return committed;
}

/**
 * A hub database whose log a worker thread copies into the database all the time, killed with
 * SIGKILL (the worker most likely in the middle of a copy), after its log (past 1 MiB) has been
 * started again from its beginning a few times: opened again, it holds every row
 * whose commit had returned, and SQLite finds it intact. Three times over the same file.
 */
describe("a hub database killed while its worker checkpoints", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every committed row and stays intact", async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-checkpoint-kill-"));
    const path = join(dir, "hub.db");
    const committed: number[] = [];
    for (let round = 0; round < 3; round++) {
      committed.push(...(await writeAndKill(path, 150, 10, 2)));
      const sql = new SqliteConnection(path);
      try {
        expect(sql.db.pragma("integrity_check", { simple: true })).toBe("ok");
        const stored = sql.all<{ n: number }>("SELECT n FROM rows ORDER BY n").map((r) => r.n);
        // Every acknowledged row, and nothing but a contiguous run from 1 (at most one more than
        // acknowledged: committed before the kill, printed after it).
        expect(stored.slice(0, committed.length)).toEqual(committed);
        expect(stored.length - committed.length).toBeLessThanOrEqual(1);
        committed.splice(0, committed.length, ...stored);
      } finally {
        sql.close();
      }
    }
  }, 180_000);
});
