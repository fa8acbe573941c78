import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startModule, type RunningModule } from "../../cli/module.js";
import { VirtualTimeDriver } from "../../harness/TimeDriver.js";
import type { SimGpioChip } from "../../hil/gpio/SimGpioChip.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { DfuBridgeHub } from "../hub/dfu/support/DfuBridgeHub.js";
import { hostFirmware } from "../hub/dfu/support/hostFirmware.js";

describe("cardsim module --board", () => {
  let running: RunningModule | undefined;
  let bridge: DfuBridgeHub | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await running?.close();
    await bridge?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    running = bridge = dir = undefined;
  });

  it("virtual: an outboard card.dfu update holds the host's BOOT (GPIO5) and pulses its RESET (GPIO27), as docs/wiring says", async () => {
    // The command's own rig (cli/module.ts startModule, as `cardsim module --board virtual
    // --seed 7` builds it), on virtual time, synced with a hub that serves a host firmware update.
    // Seeded: the operating system's keys sign on threads of their own, outside virtual time.
    const clock = new FakeClock();
    const driver = new VirtualTimeDriver(clock);
    const hub = (bridge = await DfuBridgeHub.start(clock));
    dir = await mkdtemp(join(tmpdir(), "cardsim-board-"));
    running = await startModule({
      dir,
      flash: false,
      board: "virtual",
      seed: "7",
      timeKnown: true,
      logLevel: "silent",
      logFormat: "json",
      clock,
      linkedHub: { link: hub.link(), product: hub.productUid },
    });
    const module = running.module;
    const sync = async () => {
      module.sync.request({ why: "explicit" });
      await driver.run(module.sync.idle(), 60_000, "a sync");
    };
    await driver.run(module.sync.idle(), 60_000, "the first sync");
    const chip = running.board!.gpio as SimGpioChip;
    expect(await module.request({ req: "card.dfu", name: "stm32", on: true })).toEqual({ name: "stm32" });
    await sync();
    const filename = await hub.upload("host", "pump.bin", hostFirmware(8192, { version: "3.1" }));
    await hub.requestUpdate("host", filename, module.deviceUid);
    const began = clock.now();
    const seen = { GPIO5: chip.history("GPIO5").length, GPIO27: chip.history("GPIO27").length };
    await sync();
    await clock.advance(5000);
    const edges = (line: "GPIO5" | "GPIO27") =>
      chip
        .history(line)
        .slice(seen[line])
        .map((e) => [e.at - began, e.high]);
    // BOOT0 HIGH selects the STM32's bootloader; RESET (active LOW) pulses around the transfer.
    expect(edges("GPIO5")).toEqual([[0, true]]);
    expect(edges("GPIO27")).toEqual([
      [0, false],
      [10, true],
      [822, false],
      [832, true],
    ]);
    expect(running.board!.hostBoot!.driven).toBeUndefined(); // released again
    expect(await module.request({ req: "dfu.status" })).toMatchObject({ mode: "completed" });
  });
});
