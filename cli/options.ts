import { InvalidArgumentError } from "commander";
import { randomBytes } from "node:crypto";
import { pino, type Logger } from "pino";
import { SeededRandom } from "../firmware/SeededRandom.js";
import { VARIANTS, type Variant } from "../firmware/Variant.js";

/** Parses `HOST:PORT` (`:PORT` and `PORT` mean loopback). */
export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new InvalidArgumentError(`expected HOST:PORT, got "${value}"`);
  let host = match[1] || "127.0.0.1";
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host, port };
}

/** A variant by name (`cell`, `wifi`, ...) or by SKU (`NOTE-WIFI`). */
export function parseVariant(value: string): Variant {
  const all = Object.values(VARIANTS);
  const found = all.find((v) => v.name === value || v.sku.toLowerCase() === value.toLowerCase());
  if (!found) {
    throw new InvalidArgumentError(
      `unknown module "${value}"; one of ${all.map((v) => `${v.name} (${v.sku})`).join(", ")}`,
    );
  }
  return found;
}

export function parseInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return n;
}

/** Seeded when asked (repeatable identities), from the OS otherwise. */
export function randomFor(seed: string | undefined): SeededRandom {
  return new SeededRandom(seed ?? randomBytes(16).toString("hex"));
}

/** Logs go to stderr, so stdout stays for what the command reports. */
export function createLogger(level: string, name: string): Logger {
  return pino({ level, name }, pino.destination(2));
}
