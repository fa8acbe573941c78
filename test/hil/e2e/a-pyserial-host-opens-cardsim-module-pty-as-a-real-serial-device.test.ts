import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PtyBridge } from "../../../hil/links/PtyBridge.js";
import { PtyPair } from "../../../hil/links/PtyPair.js";
import { startCli, type CliProcess } from "../../support/cliProcess.js";
import { runProgram } from "../../support/hostProgram.js";

/** Debian's python3-serial lives under the system Python (CI installs it with apt). */
const PYTHON = "/usr/bin/python3";
const hasPyserial = spawnSync(PYTHON, ["-c", "import serial"], { stdio: "ignore" }).status === 0;
const HOST = fileURLToPath(new URL("./hosts/pyserial_host.py", import.meta.url));

const runPython = (args: string[], timeoutMs: number) => runProgram(PYTHON, args, timeoutMs);

describe.skipIf(!hasPyserial || !PtyBridge.available())("a pyserial host on cardsim module --pty", () => {
  let dir: string;
  let cli: CliProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-e2e-"));
    cli = startCli([
      "module",
      "--no-flash",
      "--tcp",
      "127.0.0.1:0",
      "--pty",
      join(dir, "ttyNOTE"),
      "--seed",
      "e2e",
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/pty\s+(\S+)/);
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("resets, runs requests with CRC, commands, errors and a binary transfer, and meets the receive buffer like on hardware", async () => {
    const result = await runPython([HOST, join(dir, "ttyNOTE"), "9600"], 60_000);
    const steps = result.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { step: string; ok: boolean; error?: string });
    const failed = steps.filter((s) => !s.ok);
    expect(failed, `${result.stdout}\n${result.stderr}`).toEqual([]);
    expect(steps.map((s) => s.step)).toEqual([
      "reset",
      "echo with crc",
      "id echoed",
      "crc mismatch is io",
      "command gets no reply",
      "unknown is not-supported",
      "garbage is answered",
      "env round trip",
      "long paced request",
      "binary round trip",
      "unpaced request overflows",
      "echo after all that",
    ]);
    expect(result.code).toBe(0);
  });
});

describe.skipIf(!hasPyserial || !PtyBridge.available())("a pyserial host on cardsim module --serial", () => {
  let dir: string;
  let pair: PtyPair;
  let cli: CliProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-e2e-serial-"));
    // A virtual rig cable: the module serves one end as its UART, the host opens the other.
    pair = await PtyPair.open(join(dir, "ttyModule"), join(dir, "ttyHost"));
    cli = startCli([
      "module",
      "--no-flash",
      "--tcp",
      "127.0.0.1:0",
      "--serial",
      `${pair.a}@9600`,
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/serial\s+(\S+) @9600/);
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the device as the module's UART", async () => {
    expect(cli.stdout()).toContain(`serial  ${pair.a} @9600`);
    const result = await runPython([HOST, pair.b, "9600"], 60_000);
    const failed = result.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { ok: boolean })
      .filter((s) => !s.ok);
    expect(failed, `${result.stdout}\n${result.stderr}`).toEqual([]);
    expect(result.code).toBe(0);
  });
});

describe.runIf(!hasPyserial || !PtyBridge.available())("the pyserial end-to-end test", () => {
  it("is skipped: it needs /usr/bin/python3 with python3-serial and socat (apt-get install python3-serial socat)", () => {
    expect(hasPyserial && PtyBridge.available()).toBe(false);
  });
});
