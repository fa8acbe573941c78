import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PtyBridge } from "../../../hil/links/PtyBridge.js";
import { startCli, type CliProcess } from "../../support/cliProcess.js";
import { runProgram, testedCodeBlock } from "../../support/hostProgram.js";

const PAGE = fileURLToPath(new URL("../../../docs/hosts.md", import.meta.url));
/** Debian's python3-serial lives under the system Python (CI installs it with apt). */
const PYTHON = "/usr/bin/python3";
const hasPyserial = spawnSync(PYTHON, ["-c", "import serial"], { stdio: "ignore" }).status === 0;
const hasGcc = spawnSync("gcc", ["--version"], { stdio: "ignore" }).status === 0;
const ready = hasPyserial && hasGcc && PtyBridge.available();

describe.skipIf(!ready)(
  "the host examples of docs/hosts.md, as the page shows them, on cardsim module --pty",
  () => {
    let dir: string;
    let cli: CliProcess;
    let device: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "cardsim-hosts-"));
      device = join(dir, "ttyNOTE");
      cli = startCli(["module", "--no-flash", "--pty", device, "--log-level", "warn"]);
      await cli.waitFor(/pty\s+(\S+)/);
    });

    afterAll(async () => {
      expect(await cli.stop("SIGTERM")).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    });

    it("the termios C program compiles without a warning and gets each reply", async () => {
      writeFileSync(join(dir, "notereq.c"), testedCodeBlock(PAGE, "notereq.c"));
      // The page's build line, with warnings as errors.
      const build = await runProgram(
        "gcc",
        ["-Wall", "-Wextra", "-Werror", "-O2", "-o", "notereq", "notereq.c"],
        60_000,
        {
          cwd: dir,
        },
      );
      expect(build.stderr).toBe("");
      expect(build.code).toBe(0);
      const notereq = join(dir, "notereq");
      const version = await runProgram(notereq, [device, '{"req":"card.version"}'], 30_000);
      expect(version.code, version.stderr).toBe(0);
      expect(JSON.parse(version.stdout)).toMatchObject({ version: expect.stringMatching(/^notecard-/) });
      const added = await runProgram(
        notereq,
        [device, '{"req":"note.add","file":"sensors.qo","body":{"temp":21.5}}'],
        30_000,
      );
      expect(added).toMatchObject({ code: 0, stdout: '{"total":1}\n' });
      // A request over the module's 1500-byte receive buffer arrives whole: the program paces it.
      const text = "p".repeat(3000);
      const long = await runProgram(notereq, [device, JSON.stringify({ req: "echo", text })], 30_000);
      expect(long.code, long.stderr).toBe(0);
      expect(JSON.parse(long.stdout)).toEqual({ text });
    });

    it("the pyserial example prints the version and the note.add reply", async () => {
      writeFileSync(join(dir, "notehost.py"), testedCodeBlock(PAGE, "notehost.py"));
      const run = await runProgram(PYTHON, [join(dir, "notehost.py"), device], 60_000);
      expect(run.code, run.stderr).toBe(0);
      const [version, reply] = run.stdout.trimEnd().split("\n");
      expect(version).toMatch(/^notecard-\d+\.\d+\.\d+/);
      expect(reply).toMatch(/^\{'total': \d+\}$/);
    });
  },
);

describe.runIf(!ready)("the host examples of docs/hosts.md", () => {
  it("are skipped: they need /usr/bin/python3 with python3-serial, gcc and socat (apt-get install python3-serial gcc socat)", () => {
    // .ci/run installs them: on CI a missing one is a failure, not a skip.
    expect(process.env["CI"] === "true").toBe(false);
  });
});
