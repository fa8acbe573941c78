import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { boards } from "../../boards/boards.js";
import { buildBoard } from "../../boards/buildBoard.js";
import { boardDetails, boardSummary } from "../../cli/boards.js";
import { I2cTarget } from "../../firmware/host/I2cTarget.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { SystemClock } from "../../runtime/SystemClock.js";
import { SimGpioChip } from "../../hil/gpio/SimGpioChip.js";
import { FakePigpiod } from "../hil/i2c/FakePigpiod.js";
import { noteI2cHost } from "../hil/i2c/noteI2cHost.js";
import { bootTestModule } from "../support/moduleFixture.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("board definitions", () => {
  it.each(Object.values(boards))("$name uses each header pin once and documents its wiring", (def) => {
    const pins = [
      def.gpio.attn,
      def.gpio.hostReset,
      ...(def.gpio.hostBoot ? [def.gpio.hostBoot] : []),
      ...def.gpio.aux,
      ...(def.serial ? [def.serial.txd, def.serial.rxd] : []),
      ...(def.i2c.bsc ? [def.i2c.bsc.sda, def.i2c.bsc.scl] : []),
    ];
    expect(new Set(pins.map((p) => p.pin)).size).toBe(pins.length);
    expect(new Set(pins.map((p) => p.gpio)).size).toBe(pins.length);
    for (const p of pins) expect(p.line).toBe(`GPIO${p.gpio}`);
    expect(def.i2c.backends).toContain(def.i2c.backend);
    expect(existsSync(join(root, "docs/wiring", `${def.name}.md`))).toBe(true);
  });

  it("puts the BSC target where each SoC has it and keeps pigpio off the Pi 5", () => {
    expect(boards["pi3"]!.i2c.bsc).toMatchObject({ sda: { gpio: 18 }, scl: { gpio: 19 } });
    expect(boards["zero2w"]!.i2c.bsc).toMatchObject({ sda: { gpio: 18 }, scl: { gpio: 19 } });
    expect(boards["pi4"]!.i2c.bsc).toMatchObject({ sda: { gpio: 10 }, scl: { gpio: 11 } });
    expect(boards["pi4"]!.configTxt).toContain("dtparam=spi=off");
    expect(boards["pi5"]!.i2c.backends).toEqual(["rp2040-bridge"]);
    expect(boards["pi5"]!.configTxt).toContain("dtoverlay=uart0-pi5");
  });

  it("prints a summary and the details of a board", () => {
    expect(boardSummary(boards["pi4"]!)).toMatch(/^pi4 .*BCM2711/);
    const details = boardDetails(boards["pi3"]!);
    expect(details).toMatch(/dtoverlay=disable-bt/);
    expect(details).toMatch(/SDA GPIO18 \(pin 12\)/);
    expect(details).toMatch(/docs\/wiring\/pi3\.md/);
  });
});

describe("buildBoard", () => {
  it("virtual: the module's ATTN, I2C target and the host's RESET on simulated hardware", async () => {
    const clock = new FakeClock();
    const rig = await buildBoard("virtual", { clock, simProfile: "pico" });
    const t = await bootTestModule({ clock, attnPin: rig.attnPin });
    await rig.attachI2c(new I2cTarget(t.module));
    const chip = rig.gpio as SimGpioChip;
    expect(rig.simBus?.profile.name).toBe("pico");
    const host = noteI2cHost(rig.simBus!, clock);
    expect(await host.request('{"req":"card.attn","mode":"arm"}')).toBe("{}\r\n");
    expect(chip.level("GPIO17")).toBe(false);
    // RESET is open-drain: the rig only pulls it LOW, never fights the host's own reset circuit.
    expect(chip.driveMode("GPIO27")).toBe("open-drain");
    expect(chip.driveMode("GPIO17")).toBe("push-pull");
    const pulse = rig.hostReset.pulse(5);
    expect(chip.level("GPIO27")).toBe(false);
    await clock.advance(5);
    await pulse;
    expect(chip.level("GPIO27")).toBe(true);
    expect(rig.aux).toEqual({ AUX1: "GPIO22", AUX2: "GPIO23", AUX3: "GPIO24", AUX4: "GPIO25" });
    expect(rig.serial).toBeUndefined();
    await rig.close();
  });

  it("pi4: the pigpiod BSC backend and the PL011 UART", async () => {
    const daemon = await FakePigpiod.start();
    try {
      const gpio = new SimGpioChip(new FakeClock());
      const rig = await buildBoard("pi4", { clock: new SystemClock(), gpio, pigpiod: { port: daemon.port } });
      expect(rig.serial).toEqual({ path: "/dev/ttyAMA0", baudRate: 9600 });
      expect(rig.i2c?.kind).toBe("pigpiod-bsc");
      const t = await bootTestModule({ attnPin: rig.attnPin });
      await rig.attachI2c(new I2cTarget(t.module));
      expect(daemon.address).toBe(0x17);
      expect(gpio.level("GPIO17")).toBe(true);
      await rig.close();
      expect(daemon.control).toBe(0);
    } finally {
      await daemon.stop();
    }
  });

  it("refuses what a board cannot do, and names what it needs", async () => {
    const gpio = new SimGpioChip(new FakeClock());
    await expect(buildBoard("pi5", { clock: new SystemClock(), gpio })).rejects.toThrow(
      /RP2040 bridge needs its device path/,
    );
    await expect(buildBoard("pi5", { clock: new SystemClock(), gpio, i2c: "pigpiod-bsc" })).rejects.toThrow(
      /cannot use the pigpiod-bsc/,
    );
    await expect(buildBoard("pi9", { clock: new SystemClock() })).rejects.toThrow(
      /unknown board pi9; one of pi3, pi4, pi5, zero2w, virtual/,
    );
    await expect(buildBoard("virtual", { clock: new SystemClock(), simProfile: "fast" })).rejects.toThrow(
      /unknown I2C profile/,
    );
    const serialOnly = await buildBoard("pi5", { clock: new SystemClock(), gpio, i2c: "none" });
    expect(serialOnly.i2c).toBeUndefined();
    await serialOnly.close();
  });
});

describe("--i2c values", () => {
  it("parses every backend and rejects the rest", async () => {
    const { parseI2cBackend } = await import("../../runtime/parseI2cBackend.js");
    expect(parseI2cBackend("sim")).toEqual({ i2c: "sim" });
    expect(parseI2cBackend("sim:bsc")).toEqual({ i2c: "sim", simProfile: "bsc" });
    expect(parseI2cBackend("pigpiod")).toEqual({ i2c: "pigpiod-bsc", pigpiod: {} });
    expect(parseI2cBackend("pigpiod:pi.local:8888")).toEqual({
      i2c: "pigpiod-bsc",
      pigpiod: { host: "pi.local", port: 8888 },
    });
    expect(parseI2cBackend("rp2040:/dev/ttyACM0")).toEqual({
      i2c: "rp2040-bridge",
      bridgePath: "/dev/ttyACM0",
    });
    expect(parseI2cBackend("none")).toEqual({ i2c: "none" });
    expect(() => parseI2cBackend("sim:fast")).toThrow(/unknown profile/);
    expect(() => parseI2cBackend("rp2040")).toThrow(/needs the bridge/);
    expect(() => parseI2cBackend("pigpiod:h:x")).toThrow(/port/);
    expect(() => parseI2cBackend("i2c-dev")).toThrow(/one of/);
  });
});
