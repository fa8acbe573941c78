import { pin, type BoardDefinition } from "./BoardDefinition.js";

/** The 40-pin header wiring every Pi board shares (the BSC pins are per board). */
export const PI_GPIO: BoardDefinition["gpio"] = {
  attn: pin(17, 11),
  hostReset: pin(27, 13),
  hostBoot: pin(5, 29),
  aux: [
    { name: "AUX1", ...pin(22, 15) },
    { name: "AUX2", ...pin(23, 16) },
    { name: "AUX3", ...pin(24, 18) },
    { name: "AUX4", ...pin(25, 22) },
  ],
};

export const PI_UART = {
  device: "/dev/ttyAMA0",
  txd: pin(14, 8),
  rxd: pin(15, 10),
  baudRate: 9600,
};

export const PI_SETUP_COMMON = [
  "sudo raspi-config nonint do_serial_cons 1   # no login console on the UART",
  "sudo raspi-config nonint do_serial_hw 0     # keep the UART hardware on",
  "sudo apt-get install -y gpiod socat",
  "sudo usermod -aG dialout,gpio $USER         # serial and GPIO without root (log in again)",
];

export const BRIDGE_DEVICE = "/dev/serial/by-id/usb-Raspberry_Pi_Pico_*-if00 (or /dev/ttyACM0)";

/** The BSC (I2C target) pins of the BCM2835/6/7 boards: Pi 3 and Zero 2 W. */
/** I2C-1, the Pi's I2C controller on the header (/dev/i2c-1): the self-test's host. */
export const PI_I2C1 = { sda: pin(2, 3), scl: pin(3, 5), bus: 1 };

export const BSC_PINS_BCM283X = { sda: pin(18, 12), scl: pin(19, 35) };

/** Setup of the boards whose I2C target is the BSC peripheral through pigpiod (Bluetooth off). */
export const PIGPIOD_BSC_SETUP = [
  "sudo systemctl disable hciuart",
  "sudo apt-get install -y pigpio && sudo systemctl enable --now pigpiod",
];
