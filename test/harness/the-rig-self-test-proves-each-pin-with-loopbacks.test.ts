import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardNamed } from "../../boards/boards.js";
import { runRigSelfTest, type RigSelfTestOptions } from "../../harness/RigSelfTest.js";
import { I2cBusController, type I2cBusLike } from "../../hil/i2c/I2cBusController.js";
import { BSC } from "../../hil/i2c/I2cHardwareProfile.js";
import { SimI2cBus } from "../../hil/i2c/SimI2cBus.js";
import { PtyPair } from "../../hil/links/PtyPair.js";
import { SerialPortLink } from "../../hil/links/SerialPortLink.js";
import { SystemClock } from "../../runtime/SystemClock.js";
import { runCli } from "../support/cliProcess.js";

const pi4 = boardNamed("pi4")!;
const clock = new SystemClock();

/** The Pi's I2C-1 wired to the BSC pins, modelled: one software bus with the BSC's limits. */
function bscLoopback(): NonNullable<RigSelfTestOptions["i2c"]> {
  const bus = new SimI2cBus({ clock, profile: BSC });
  return { host: bus, attach: (t) => bus.attach(t), profile: BSC, backend: "pigpiod-bsc" };
}

/** What the i2c-bus package does on /dev/i2c-1, over the software bus: a NACK is EREMOTEIO. */
function fakeI2cBus(bus: SimI2cBus): I2cBusLike {
  const nack = () => Object.assign(new Error("Remote I/O error"), { code: "EREMOTEIO" });
  return {
    async i2cWrite(address, length, buffer) {
      const r = await bus.write(address, new Uint8Array(buffer.subarray(0, length)));
      if (!r.acked) throw nack();
      return { bytesWritten: r.sent };
    },
    async i2cRead(address, length, buffer) {
      const r = await bus.read(address, length);
      if (!r.acked) throw nack();
      buffer.set(r.bytes);
      return { bytesRead: r.bytes.length };
    },
    close: async () => undefined,
  };
}

describe("the rig's I2C loopback (the Pi's I2C-1 on the module's target pins)", () => {
  it("passes: the target acknowledges and a note-c host with the BSC's MTU gets card.version", async () => {
    const checks = await runRigSelfTest({ board: pi4, clock, i2c: bscLoopback() });
    expect(checks.map((c) => [c.name, c.pass])).toEqual([
      ["I2C wires", true],
      ["I2C requests", true],
    ]);
    expect(checks[0]!.pins.map((p) => `${p.where} ${p.line}`)).toEqual([
      "pin 3 GPIO2",
      "pin 5 GPIO3",
      "pin 19 GPIO10",
      "pin 23 GPIO11",
    ]);
    expect(checks[1]!.detail).toMatch(/MTU 14\) reset the link and card.version answered \(dev:\d{15}\)/);
  });

  it("passes through the i2c-bus adapter the real run uses (NACKs become results, not errors)", async () => {
    const loop = bscLoopback();
    const host = new I2cBusController(fakeI2cBus(loop.host as SimI2cBus));
    expect(await host.write(0x42, Uint8Array.of(0, 0))).toMatchObject({ acked: false, nack: "address" });
    const checks = await runRigSelfTest({ board: pi4, clock, i2c: { ...loop, host } });
    expect(checks.every((c) => c.pass)).toBe(true);
  });

  it("fails both wires when nothing acknowledges (a loose SDA or SCL, pigpiod not serving)", async () => {
    const loop = bscLoopback();
    const elsewhere = new SimI2cBus({ clock, profile: BSC }); // the target is not on the host's bus
    const checks = await runRigSelfTest({ board: pi4, clock, i2c: { ...loop, host: elsewhere } });
    expect(checks.map((c) => [c.name, c.pass])).toEqual([
      ["I2C wires", false],
      ["I2C requests", false],
    ]);
    expect(checks[0]!.detail).toMatch(/nothing acknowledged at 0x17: check SDA and SCL/);
  });
});

describe.skipIf(!PtyPair.available())("the rig's UART loopback (TX jumpered to RX), on a pty pair", () => {
  let dir: string;
  let pair: PtyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-selftest-"));
    pair = await PtyPair.open(join(dir, "ttyAMA0"), join(dir, "jumper"));
  });

  afterAll(async () => {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The jumper: whatever reaches the far end goes straight back. */
  async function jumper(): Promise<SerialPortLink> {
    const far = await SerialPortLink.open(pair.b);
    far.onData((bytes) => far.write(bytes));
    return far;
  }

  it("passes when every byte comes back, naming TXD and RXD", async () => {
    const far = await jumper();
    const uart = await SerialPortLink.open(`${pair.a}@9600`);
    try {
      const [check] = await runRigSelfTest({ board: pi4, clock, uart });
      expect(check).toMatchObject({
        name: "UART loopback",
        pass: true,
        detail: "258 bytes sent came back unchanged",
      });
      expect(check!.pins.map((p) => `${p.where} ${p.line}`)).toEqual(["pin 8 GPIO14", "pin 10 GPIO15"]);
    } finally {
      await uart.close();
      await far.close();
    }
  });

  it("fails when nothing comes back (no jumper)", async () => {
    const uart = await SerialPortLink.open(`${pair.a}@9600`);
    try {
      const [check] = await runRigSelfTest({ board: pi4, clock, uart, timeoutMs: 300 });
      expect(check).toMatchObject({ pass: false, detail: expect.stringMatching(/nothing came back/) });
    } finally {
      await uart.close();
    }
  });

  it("cardsim selftest prints pass or FAIL per pin and exits 1 on a failure", async () => {
    const far = await jumper();
    try {
      const ok = await runCli(["selftest", "--board", "virtual", "--serial", pair.a]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^cardsim selftest virtual$/m);
      expect(ok.stdout).toMatch(
        /^ {2}pass {2}serial device +TX looped to RX: 258 bytes sent came back unchanged$/m,
      );
      expect(ok.stdout).toMatch(/^ {2}pass {2}I2C requests: a note-c host \(MTU 14\)/m);
      expect(ok.stdout).toMatch(/^3 of 3 checks passed$/m);
    } finally {
      await far.close();
    }
    const bad = await runCli(["selftest", "--board", "virtual", "--serial", pair.a, "--timeout", "300"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^ {2}FAIL {2}serial device +TX looped to RX: nothing came back/m);
    expect(bad.stdout).toMatch(/^2 of 3 checks passed$/m);
  });
});
