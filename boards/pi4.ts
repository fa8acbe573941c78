import { pin, type BoardDefinition } from "./BoardDefinition.js";
import { BRIDGE_DEVICE, PIGPIOD_BSC_SETUP, PI_GPIO, PI_I2C1, PI_SETUP_COMMON, PI_UART } from "./piCommon.js";

export const pi4: BoardDefinition = {
  name: "pi4",
  title: "Raspberry Pi 4 Model B / 400 (BCM2711)",
  serial: {
    ...PI_UART,
    notes:
      "dtoverlay=disable-bt puts the PL011 (/dev/ttyAMA0) on GPIO14/15. The Pi 4 has more PL011s " +
      "(dtoverlay=uart2..uart5 -> /dev/ttyAMA1..4) for a second host.",
  },
  usbGadget: {
    device: "/dev/ttyGS0",
    configTxt: ["dtoverlay=dwc2,dr_mode=peripheral"],
    notes:
      "The USB-C port in device mode makes the Pi a USB serial device to the host; power the Pi " +
      "through the GPIO header's 5 V pins then. Add `modules-load=dwc2,g_serial` after `rootwait` " +
      "in /boot/firmware/cmdline.txt.",
  },
  i2c: {
    backend: "pigpiod-bsc",
    backends: ["pigpiod-bsc", "rp2040-bridge"],
    bsc: { sda: pin(10, 19), scl: pin(11, 23) },
    bridgeDevice: BRIDGE_DEVICE,
    controller: PI_I2C1,
    notes:
      "On the BCM2711 the BSC target is on GPIO10/11 (the SPI0 pins: SPI must be off). 16-byte FIFOs, " +
      "no clock stretching (host I2C MTU <= 14); pigpio 75 or newer.",
  },
  gpio: PI_GPIO,
  configTxt: ["enable_uart=1", "dtoverlay=disable-bt", "dtparam=spi=off"],
  setup: [...PI_SETUP_COMMON, ...PIGPIOD_BSC_SETUP],
};
