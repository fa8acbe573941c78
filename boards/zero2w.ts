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

export const zero2w: BoardDefinition = {
  name: "zero2w",
  title: "Raspberry Pi Zero 2 W (RP3A0 / BCM2710A1)",
  serial: {
    ...PI_UART,
    notes:
      "As on the Pi 3: dtoverlay=disable-bt puts the PL011 (/dev/ttyAMA0) on GPIO14/15 instead of " +
      "the mini-UART.",
  },
  usbGadget: {
    device: "/dev/ttyGS0",
    configTxt: ["dtoverlay=dwc2,dr_mode=peripheral"],
    notes:
      "Alternative to the UART: the data micro-USB port (marked USB, not PWR) in device mode makes " +
      "the Zero a USB serial device to the host, like the module's own USB port. Add " +
      "`modules-load=dwc2,g_serial` after `rootwait` in /boot/firmware/cmdline.txt.",
  },
  i2c: {
    backend: "pigpiod-bsc",
    backends: ["pigpiod-bsc", "rp2040-bridge"],
    bsc: BSC_PINS_BCM283X,
    bridgeDevice: BRIDGE_DEVICE,
    controller: PI_I2C1,
    notes:
      "BSC: 16-byte FIFOs, no clock stretching (host I2C MTU <= 14). With the USB port in gadget " +
      "mode the RP2040 bridge needs a USB hub on the Zero's single data port.",
  },
  gpio: PI_GPIO,
  configTxt: ["enable_uart=1", "dtoverlay=disable-bt"],
  setup: [...PI_SETUP_COMMON, ...PIGPIOD_BSC_SETUP],
};
