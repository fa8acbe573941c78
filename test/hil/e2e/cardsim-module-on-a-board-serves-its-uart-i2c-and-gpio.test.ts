import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostLineClient } from "../../../hil/HostLineClient.js";
import { PtyPair } from "../../../hil/links/PtyPair.js";
import { startCli, runCli, type CliProcess } from "../../support/cliProcess.js";
import { fakeGpiodTools } from "../gpio/fakeGpiodTools.js";
import { FakePigpiod } from "../i2c/FakePigpiod.js";

/**
 * `cardsim module --board pi4` as on a rig, with every piece of hardware replaced by a fake that
 * speaks its real interface: the UART is one end of a pty pair, the BSC peripheral is a fake pigpio
 * daemon on its socket, and the GPIO lines are fake gpiod tools.
 */
describe.skipIf(!PtyPair.available())("cardsim module --board pi4", () => {
  let dir: string;
  let pair: PtyPair;
  let pigpiod: FakePigpiod;
  let gpiod: Awaited<ReturnType<typeof fakeGpiodTools>>;
  let cli: CliProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-board-"));
    pair = await PtyPair.open(join(dir, "ttyAMA0"), join(dir, "mcu"));
    pigpiod = await FakePigpiod.start();
    gpiod = await fakeGpiodTools(2);
    cli = startCli([
      "module",
      "--no-flash",
      "--tcp",
      "127.0.0.1:0",
      "--board",
      "pi4",
      "--serial",
      `${pair.a}@9600`,
      "--i2c",
      `pigpiod:127.0.0.1:${pigpiod.port}`,
      "--gpiod-tools",
      gpiod.dir,
      "--log-level",
      "warn",
    ]);
    await cli.waitFor(/reset\s+GPIO27/);
  });

  afterAll(async () => {
    expect(await cli.stop("SIGTERM")).toBe(0);
    await pigpiod.stop();
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(gpiod.dir, { recursive: true, force: true });
  });

  it("says what it wired", () => {
    const out = cli.stdout();
    expect(out).toContain(`serial  ${pair.a} @9600`);
    expect(out).toMatch(/i2c {2}pigpiod-bsc \(bsc\) at 0x17/);
    expect(out).toMatch(/board {2}pi4: /);
    expect(out).toMatch(/attn {2}GPIO17 \(pin 11\)/);
    expect(out).toMatch(/reset {2}GPIO27 \(pin 13\)/);
  });

  it("answers on the UART, on I2C through the BSC peripheral, and drives ATTN", async () => {
    // Serial.
    const mcu = await HostLineClient.serial(pair.b);
    expect(await mcu.transaction('{"req":"echo","text":"uart"}', { crc: true })).toMatch(/"text":"uart"/);
    // I2C: the BSC is configured as a target at 0x17; a [len][data] write then polls get the reply.
    await pigpiod.until(() => pigpiod.address === 0x17, "the BSC target at 0x17");
    await pigpiod.controllerSend(0x17, Buffer.from('{"req":"echo","text":"i2c"}\n'));
    // Read as a host does: ask what is left until the whole reply is in.
    let reply = "";
    await pigpiod.until(
      async () => {
        const { available } = await pigpiod.controllerQuery(0x17, 0);
        if (available === 0) return reply.endsWith("\n");
        const { data } = await pigpiod.controllerQuery(0x17, Math.min(available, 14));
        reply += Buffer.from(data).toString();
        return false;
      },
      "the reply",
      15_000,
    );
    expect(reply).toBe('{"text":"i2c"}\r\n');
    // ATTN: arming it drives GPIO17 LOW through gpioset.
    expect(await mcu.transaction('{"req":"card.attn","mode":"arm"}')).toMatch(/^\{/);
    await gpiod.untilCalls((calls) => calls.some((c) => /^gpioset .*GPIO17=0/.test(c)), "ATTN driven low");
    await mcu.close();
  });

  it("refuses a board it does not know, and --i2c sim without a harness", async () => {
    const unknown = await runCli(["module", "--no-flash", "--tcp", "127.0.0.1:0", "--board", "pi9"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown board pi9; one of pi3, pi4, pi5, zero2w, virtual/);
    const sim = await runCli(["module", "--no-flash", "--tcp", "127.0.0.1:0", "--i2c", "sim"]);
    expect(sim.code).not.toBe(0);
    expect(sim.stderr).toMatch(/--i2c sim: the software bus has no controller outside this process/);
  });
});
