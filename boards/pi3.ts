import type { BoardDefinition } from "./BoardDefinition.js";
import {
  BRIDGE_DEVICE,
  BSC_PINS_BCM283X,
  PI_GPIO,
  PI_SETUP_COMMON,
  PI_UART,
  PIGPIOD_BSC_SETUP,
  PI_I2C1,
} from "./piCommon.js";

export const pi3: BoardDefinition = {
  name: "pi3",
  title: "Raspberry Pi 3 Model B/B+ (BCM2837)",
  serial: {
    ...PI_UART,
    notes:
      "GPIO14/15 carry the mini-UART (/dev/ttyS0) by default; dtoverlay=disable-bt moves the PL011 " +
      "(/dev/ttyAMA0, a stable clock and real parity/framing) there and turns Bluetooth off.",
  },
  i2c: {
    backend: "pigpiod-bsc",
    backends: ["pigpiod-bsc", "rp2040-bridge"],
    bsc: BSC_PINS_BCM283X,
    bridgeDevice: BRIDGE_DEVICE,
    controller: PI_I2C1,
    notes:
      "The BSC peripheral has 16-byte FIFOs and cannot stretch the clock: the host must use an I2C " +
      "MTU of 14 or less (note-c: NoteSetI2CMtu(14)) and wait 2 ms between a query and its read. " +
      "Use the RP2040 bridge for unmodified note-c timing.",
  },
  gpio: PI_GPIO,
  configTxt: ["enable_uart=1", "dtoverlay=disable-bt"],
  setup: [...PI_SETUP_COMMON, ...PIGPIOD_BSC_SETUP],
};
