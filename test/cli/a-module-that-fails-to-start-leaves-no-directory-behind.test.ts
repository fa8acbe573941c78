import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PtyPair } from "../../hil/links/PtyPair.js";
import { runCli } from "../support/cliProcess.js";

/** A failed `cardsim module` start: exit status 2, one line on stderr. */
async function failedStart(args: string[], line: RegExp): Promise<void> {
  const run = await runCli(["module", ...args, "--log-level", "warn"]);
  expect(run.stderr.trimEnd()).toMatch(line);
  expect(run.code).toBe(2);
}

describe("a module that cannot start its listeners leaves no directory behind", () => {
  let dir: string;
  let busy: Server;
  let busyPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-failed-start-"));
    busy = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
    busyPort = (busy.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("a --dir that did not exist is not made when the TCP port is in use", async () => {
    await failedStart(["--dir", join(dir, "mod3"), "--tcp", `127.0.0.1:${busyPort}`], /is already in use/);
    expect(existsSync(join(dir, "mod3"))).toBe(false);
  });

  it("a --dir that existed keeps what it had, and gets no flash", async () => {
    mkdirSync(join(dir, "existing"));
    await failedStart(
      ["--dir", join(dir, "existing"), "--tcp", `127.0.0.1:${busyPort}`],
      /is already in use/,
    );
    expect(readdirSync(join(dir, "existing"))).toEqual([]);
  });

  it("a module that did start keeps its flash in --dir", async () => {
    // The same command with a free port: the flash is made and stays (the module's state).
    const run = await runCli(["module", "--dir", join(dir, "kept"), "--print-key"]);
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, "kept", "flash"))).toBe(true);
  });

  describe.skipIf(!PtyPair.available())("ptys (needs socat)", () => {
    let pair: PtyPair;

    beforeAll(async () => {
      pair = await PtyPair.open(join(dir, "ttyA"), join(dir, "ttyB"));
    });

    afterAll(async () => {
      await pair.close();
    });

    it("a --dir is not made when the --pty path is in use (the README's second module)", async () => {
      await failedStart(["--dir", join(dir, "mod4"), "--pty", pair.b], /is in use/);
      expect(existsSync(join(dir, "mod4"))).toBe(false);
    });
  });
});
