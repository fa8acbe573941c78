import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Where an RP2040 bridge usually appears: its by-id name, else the first CDC-ACM device. */
export function findRp2040Bridge(dir = "/dev/serial/by-id"): string {
  try {
    const found = readdirSync(dir).find((name) => /^usb-Raspberry_Pi_Pico.*-if00$/.test(name));
    if (found) return join(dir, found);
  } catch {
    // No by-id folder: no USB serial device at all.
  }
  try {
    if (readdirSync("/dev").includes("ttyACM0")) return "/dev/ttyACM0";
  } catch {
    // No /dev to look in.
  }
  throw new Error(
    "the RP2040 bridge was not found (no /dev/serial/by-id/usb-Raspberry_Pi_Pico_*-if00 or /dev/ttyACM0): pass --i2c rp2040:DEVICE",
  );
}
