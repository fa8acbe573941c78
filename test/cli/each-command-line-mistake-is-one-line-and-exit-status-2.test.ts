import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SerialPort } from "serialport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PtyPair } from "../../hil/links/PtyPair.js";
import { runCli } from "../support/cliProcess.js";

/** A port something listens on (held for the test), and one nothing listens on. */
function listening(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
const portOf = (server: Server) => (server.address() as { port: number }).port;
async function closedPort(): Promise<number> {
  const server = await listening();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The mistake's one line: exit status 2, nothing on stdout, one line on stderr, no stack. */
async function mistake(args: string[], line: RegExp): Promise<void> {
  const run = await runCli(args);
  expect(run.stderr.trimEnd()).toMatch(line);
  expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe("");
}

describe("a mistake on the command line is one line saying what to do, and exit status 2", () => {
  let dir: string;
  let busy: Server;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-mistakes-"));
    busy = await listening();
  });

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("the module's TCP port is already in use", async () => {
    await mistake(
      ["module", "--no-flash", "--tcp", `127.0.0.1:${portOf(busy)}`],
      new RegExp(
        `^cardsim module: 127\\.0\\.0\\.1:${portOf(busy)} is already in use \\(another cardsim\\?\\): stop that program, or choose another address with --tcp HOST:PORT`,
      ),
    );
  });

  it("the hub's port is already in use", async () => {
    await mistake(
      ["hub", "--dir", join(dir, "hub"), "--listen", `127.0.0.1:${portOf(busy)}`, "--tls-listen", "off"],
      /^cardsim hub: 127\.0\.0\.1:\d+ is already in use .* with --listen HOST:PORT/,
    );
    await mistake(
      ["up", "--dir", join(dir, "up"), "--no-flash", "--hub-listen", `127.0.0.1:${portOf(busy)}`],
      /^cardsim up: 127\.0\.0\.1:\d+ is already in use .* with --hub-listen HOST:PORT/,
    );
  });

  it("no module is listening for cardsim req", async () => {
    const port = await closedPort();
    await mistake(
      ["req", "--tcp", `127.0.0.1:${port}`, '{"req":"card.version"}'],
      new RegExp(`^cardsim req: no module is listening on 127\\.0\\.0\\.1:${port}: check the address`),
    );
    await mistake(["req", "{oops"], /^cardsim req: the request is not JSON .*: quote it/);
  });

  it("a --log-level that does not exist", async () => {
    await mistake(
      ["module", "--log-level", "loud"],
      /^cardsim module: option '--log-level <LEVEL>' argument 'loud' is invalid\. use one of fatal, error, warn, info, debug, trace, silent/,
    );
  });

  it("pigpiod is not running", async () => {
    const port = await closedPort();
    await mistake(
      ["module", "--no-flash", "--i2c", `pigpiod:127.0.0.1:${port}`],
      new RegExp(
        `^cardsim module: pigpiod is not answering at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): start it \\(sudo systemctl enable --now pigpiod\\)`,
      ),
    );
  });

  it("the gpiod tools are missing", async () => {
    const empty = mkdtempSync(join(dir, "no-tools-"));
    await mistake(
      ["module", "--no-flash", "--board", "pi4", "--i2c", "none", "--gpiod-tools", empty],
      /^cardsim module: the gpiod tools are missing \(no gpioset in .*\): install them \(sudo apt-get install gpiod\) or give their folder with --gpiod-tools DIR$/,
    );
  });

  it("an unknown board", async () => {
    await mistake(
      ["module", "--no-flash", "--board", "pi9"],
      /^cardsim module: unknown board pi9; one of pi3/,
    );
  });

  describe.skipIf(!PtyPair.available())("devices (needs socat)", () => {
    let pair: PtyPair;

    beforeAll(async () => {
      pair = await PtyPair.open(join(dir, "ttyA"), join(dir, "ttyB"));
    });

    afterAll(async () => {
      await pair.close();
    });

    it("a serial device another program holds", async () => {
      const holder = new SerialPort({ path: pair.a, baudRate: 9600, autoOpen: false });
      await new Promise<void>((resolve, reject) => holder.open((e) => (e ? reject(e) : resolve())));
      try {
        await mistake(
          ["module", "--no-flash", "--serial", pair.a],
          /^cardsim module: .*ttyA is in use by another program \(another cardsim, a terminal\): stop it first$/,
        );
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });

    it("a serial device that does not exist", async () => {
      await mistake(
        ["module", "--no-flash", "--serial", join(dir, "ttyNone")],
        /^cardsim module: there is no device .*ttyNone: check its name/,
      );
    });

    it("a --pty path another module serves", async () => {
      await mistake(
        ["module", "--no-flash", "--pty", pair.b],
        /^cardsim module: .*ttyB is in use: another cardsim \(or socat\) serves a device there; stop it, or choose another --pty PATH$/,
      );
    });
  });

  it("the hub's --device-auth or --hello-limit is not one it knows", async () => {
    await mistake(
      ["hub", "--dir", join(dir, "hub-auth"), "--device-auth", "trusting"],
      /^cardsim hub: --device-auth: use tofu \(.*\) or pinned \(.*\), not "trusting"$/,
    );
    await mistake(
      ["hub", "--dir", join(dir, "hub-auth"), "--hello-limit", "5"],
      /^cardsim hub: --hello-limit: expected off, or hellos a minute per device and per source address like "120\/min,6000\/min", got "5"$/,
    );
  });
});
