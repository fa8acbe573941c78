import type { BoardDefinition } from "./BoardDefinition.js";
import { PI_GPIO } from "./piCommon.js";

/**
 * No hardware: a pty or TCP serial link, the software I2C bus and a simulated GPIO chip (CI,
 * laptops). Line names match the Pi boards so scenarios run unchanged on a rig.
 */
export const virtual: BoardDefinition = {
  name: "virtual",
  title: "Virtual rig (pty/TCP serial, software I2C bus, simulated GPIO)",
  i2c: {
    backend: "sim",
    backends: ["sim"],
    bridgeDevice: "-",
    notes: "The software bus models the bsc or pico hardware on request (profile), ideal by default.",
  },
  gpio: PI_GPIO,
  configTxt: [],
  setup: [],
};
