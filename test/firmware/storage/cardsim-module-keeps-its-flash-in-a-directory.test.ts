import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt } from "../../../core/Random.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { encodeSuperblock } from "../../../firmware/storage/flash/Superblock.js";
import { HostLineClient } from "../../../hil/HostLineClient.js";
import { runCli, startCli, type CliProcess } from "../../support/cliProcess.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cardsim-module-flash-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function startModule(
  dir: string,
  extra: string[] = [],
): Promise<{ cli: CliProcess; tcp: { host: string; port: number } }> {
  const cli = startCli(["module", "--tcp", "127.0.0.1:0", "--dir", dir, "--log-level", "warn", ...extra]);
  const m = await cli.waitFor(/tcp\s+(\S+):(\d+)[\s\S]*flash /);
  return { cli, tcp: { host: m[1]!, port: Number(m[2]) } };
}

describe("cardsim module --flash", () => {
  it("keeps the flash under --dir, refuses a second module on it, and comes back with the same identity", async () => {
    const dir = join(root, "identity");
    const first = await startModule(dir);
    expect(first.cli.stdout()).toContain(`flash ${join(dir, "flash")}`);
    const device = /module (dev:\d{15})/.exec(first.cli.stdout())![1];

    const second = await runCli(["module", "--tcp", "127.0.0.1:0", "--dir", dir]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^cardsim module: flash directory .*flash is in use by process \d+/);

    expect(await first.cli.stop("SIGTERM")).toBe(0);
    const again = await startModule(dir);
    expect(/module (dev:\d{15})/.exec(again.cli.stdout())![1]).toBe(device);
    expect(await again.cli.stop("SIGTERM")).toBe(0);
  });

  it("runs on memory only with --no-flash", async () => {
    const dir = join(root, "memory");
    const { cli } = await startModule(dir, ["--no-flash"]);
    expect(cli.stdout()).toContain("flash (memory only)");
    expect(await cli.stop("SIGTERM")).toBe(0);
  });

  it("stops with a clear message on a flash from a newer cardsim", async () => {
    const dir = join(root, "newer");
    await (await import("node:fs/promises")).mkdir(dir, { recursive: true });
    await writeFile(join(dir, "flash.json"), encodeSuperblock({ version: 9, capacity: 1 << 20 }));
    const run = await runCli(["module", "--tcp", "127.0.0.1:0", "--flash", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^cardsim module: this flash was written by a newer cardsim: flash.json has storage format version 9/,
    );
  });
});

describe("cardsim flash inspect", () => {
  it("lists a stopped module's files, settings and space used", async () => {
    const dir = join(root, "inspect");
    const { cli } = await startModule(dir, ["--seed", "11", "--flash-capacity", "256K"]);
    const device = /module (dev:\d{15})/.exec(cli.stdout())![1];
    expect(await cli.stop("SIGTERM")).toBe(0);

    const text = await runCli(["flash", "inspect", join(dir, "flash")]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/format 1, generation 1, capacity 262144 bytes, used \d+ bytes \(\d+\.\d%\)/);
    expect(text.stdout).toMatch(/journal\.1\s+\d+/);
    expect(text.stdout).toContain(`identity {"device":"${device}"}`);

    const json = JSON.parse((await runCli(["flash", "inspect", "--json", join(dir, "flash")])).stdout);
    expect(json).toMatchObject({
      formatVersion: 1,
      capacity: 262144,
      config: { identity: { device } },
      problems: [],
    });
  });

  it("says clearly when there is no flash to inspect", async () => {
    const missing = await runCli(["flash", "inspect", join(root, "nothing-here")]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no flash directory at .*nothing-here/),
    });
    const empty = join(root, "empty");
    await (await import("node:fs/promises")).mkdir(empty);
    const none = await runCli(["flash", "inspect", empty]);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringMatching(/holds no cardsim flash/) });
  });
});

describe("cardsim module killed with SIGKILL while hosts add notes", () => {
  it("has every acknowledged note exactly once after each restart", async () => {
    const dir = join(root, "sigkill");
    const random = new SeededRandom("sigkill");
    const acknowledged = new Set<number>();
    let sent = 0;
    const rounds = 5;
    for (let round = 0; round < rounds; round++) {
      const { cli, tcp } = await startModule(dir);
      const client = await HostLineClient.tcp(tcp);
      // Keep several requests in flight and kill the module at a random moment: between
      // requests, while one is being committed, or after its commit but before its reply.
      let killed = false;
      const send = () => {
        const n = sent++;
        client.write(`{"req":"note.add","file":"stream.qo","body":{"n":${n}},"id":${n}}\n`);
      };
      for (let i = 0; i < 8; i++) send();
      const timer = setTimeout(
        () => {
          killed = true;
          cli.child.kill("SIGKILL");
        },
        100 + randomInt(random, 400),
      );
      // Every reply that reaches the host is an acknowledgement, even one read after the kill.
      for (;;) {
        const line = await client.nextLine(10_000);
        if (line === undefined) break;
        const reply = JSON.parse(line) as { err?: string; id: number };
        if (reply.err) throw new Error(`note.add failed: ${line}`);
        acknowledged.add(reply.id);
        if (!killed) send();
      }
      clearTimeout(timer);
      expect(killed).toBe(true);
      expect(await cli.stop()).toBe("SIGKILL");
      await client.close().catch(() => undefined);
    }
    // One more boot repairs whatever the last kill left, then the flash is read as a user would.
    const last = await startModule(dir);
    expect(await last.cli.stop("SIGTERM")).toBe(0);
    const inspect = JSON.parse((await runCli(["flash", "inspect", "--json", join(dir, "flash")])).stdout) as {
      notefiles: { name: string; list: { body: { n: number } }[] }[];
    };
    const stored = inspect.notefiles.find((f) => f.name === "stream.qo")!.list.map((note) => note.body.n);
    expect(new Set(stored).size).toBe(stored.length); // nothing twice
    const missing = [...acknowledged].filter((n) => !stored.includes(n));
    expect(missing).toEqual([]); // every acknowledged note is there
    expect(stored.every((n) => n < sent)).toBe(true);
    expect(acknowledged.size).toBeGreaterThan(rounds * 20);
  }, 120_000);
});
