import { randomInt } from "node:crypto";
import { hashPassword, UNUSABLE_PASSWORD_HASH, verifyPassword } from "./secrets.js";

/** Digits of a device PIN: 10^8 values, which the per-device throttle makes unguessable online. */
export const DEVICE_PIN_DIGITS = 8;

/** A new random device PIN: DEVICE_PIN_DIGITS decimal digits (leading zeros kept). */
export function newDevicePin(): string {
  return String(randomInt(0, 10 ** DEVICE_PIN_DIGITS)).padStart(DEVICE_PIN_DIGITS, "0");
}

/**
 * What the device record keeps of its PIN: a salted scrypt hash, as for passwords. A PIN has only
 * 10^8 values, so a fast hash of it would give the PIN back to whoever read the store.
 */
export function hashDevicePin(pin: string): Promise<string> {
  return hashPassword(pin);
}

/**
 * True when `pin` is the device's PIN (constant-time comparison of the hashes). A device without
 * one costs the same scrypt work and never matches.
 */
export async function checkDevicePin(pin: string, stored: string | undefined): Promise<boolean> {
  const ok = await verifyPassword(pin, stored ?? UNUSABLE_PASSWORD_HASH);
  return ok && stored !== undefined;
}
