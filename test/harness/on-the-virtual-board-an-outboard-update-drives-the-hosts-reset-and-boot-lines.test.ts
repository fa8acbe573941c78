import { afterEach, describe, expect, it } from "vitest";
import type { SimGpioChip } from "../../hil/gpio/SimGpioChip.js";
import { Scenario } from "../../harness/Scenario.js";
import { DfuBridgeHub } from "../hub/dfu/support/DfuBridgeHub.js";
import { hostFirmware } from "../hub/dfu/support/hostFirmware.js";

describe("an outboard update on the virtual board", () => {
  let sc: Scenario | undefined;
  let bridge: DfuBridgeHub | undefined;
  afterEach(async () => {
    await sc?.close();
    await bridge?.close();
    sc = bridge = undefined;
  });

  it("drives the host's BOOT (GPIO5) and RESET (GPIO27) lines the board names, and the hub sees it completed", async () => {
    const hub = (bridge = await DfuBridgeHub.start());
    sc = await Scenario.start({
      board: "virtual",
      timeKnown: true,
      hub: (clock) => {
        hub.attach(clock);
        return { link: hub.link(), product: hub.productUid };
      },
    });
    const chip = sc.rig!.gpio as SimGpioChip;
    expect(sc.rig!.hostBoot!.driven).toBeUndefined();
    await sc.module.request({ req: "card.dfu", name: "stm32", on: true });
    sc.module.sync.request({ why: "explicit" });
    await sc.run(sc.module.sync.idle());
    const device = sc.module.deviceUid;
    const filename = await hub.upload("host", "pump.bin", hostFirmware(8192, { version: "3.1" }));
    await hub.requestUpdate("host", filename, device);
    const began = sc.clock.now();
    const seen = { GPIO5: chip.history("GPIO5").length, GPIO27: chip.history("GPIO27").length };
    sc.module.sync.request({ why: "explicit" });
    await sc.run(sc.module.sync.idle());
    await sc.advance(5000);
    const edges = (line: "GPIO5" | "GPIO27") =>
      chip
        .history(line)
        .slice(seen[line])
        .map((e) => [e.at - began, e.high]);
    // BOOT0 HIGH selects the STM32's bootloader; RESET (active LOW) pulses around the transfer:
    // 100 ms for the bootloader, then 8192 bytes at 115200 baud (two 4 KiB blocks of 356 ms).
    expect(edges("GPIO5")).toEqual([[0, true]]);
    expect(edges("GPIO27")).toEqual([
      [0, false],
      [10, true],
      [822, false],
      [832, true],
    ]);
    expect(sc.rig!.hostBoot!.driven).toBeUndefined(); // released again
    expect(await sc.module.request({ req: "dfu.status" })).toMatchObject({ mode: "completed" });
    sc.module.sync.request({ why: "explicit" });
    await sc.run(sc.module.sync.idle());
    const { request, record } = await hub.dfuOf("host", device);
    expect(request?.state).toBe("completed");
    expect(record).toMatchObject({ user: { mode: "completed" } });
    await sc.finish();
    sc = undefined;
  });
});
