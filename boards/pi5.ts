import type { BoardDefinition } from "./BoardDefinition.js";
import { BRIDGE_DEVICE, PI_GPIO, PI_I2C1, PI_SETUP_COMMON, PI_UART } from "./piCommon.js";

export const pi5: BoardDefinition = {
  name: "pi5",
  title: "Raspberry Pi 5 (BCM2712 + RP1)",
  serial: {
    ...PI_UART,
    notes:
      "dtoverlay=uart0-pi5 puts UART0 of the RP1 on GPIO14/15 as /dev/ttyAMA0. /dev/ttyAMA10 is the " +
      "3-pin debug connector, not the 40-pin header.",
  },
  usbGadget: {
    device: "/dev/ttyGS0",
    configTxt: ["dtoverlay=dwc2,dr_mode=peripheral"],
    notes: "Device mode on the USB-C port is reported unreliable on the Pi 5: prefer the UART.",
  },
  i2c: {
    backend: "rp2040-bridge",
    backends: ["rp2040-bridge"],
    bridgeDevice: BRIDGE_DEVICE,
    controller: PI_I2C1,
    notes:
      "pigpio does not run on the Pi 5 and its I2C controllers have no target mode in Raspberry Pi " +
      "OS kernels: the I2C target is an RP2040 (Pico) bridge on USB (hil/bridge/rp2040).",
  },
  gpio: PI_GPIO,
  configTxt: ["dtoverlay=uart0-pi5"],
  setup: PI_SETUP_COMMON,
};
