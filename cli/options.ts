import { InvalidArgumentError } from "commander";
import { randomBytes } from "node:crypto";
import { pino, type Logger } from "pino";
import { SeededRandom } from "../core/SeededRandom.js";
import { resolveVariant, VARIANTS, type Variant } from "../firmware/Variant.js";

/** Parses `HOST:PORT` (`:PORT` and `PORT` mean loopback). */
export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new InvalidArgumentError(`expected HOST:PORT, got "${value}"`);
  let host = match[1] || "127.0.0.1";
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host, port };
}

/** A variant by name (`cell`, `wifi`, ...) or by any SKU of its family, `+xp` for extended power. */
export function parseVariant(value: string): Variant {
  const found = resolveVariant(value);
  if (!found) {
    const all = Object.values(VARIANTS);
    throw new InvalidArgumentError(
      `unknown module "${value}"; one of ${all.map((v) => `${v.name} (${v.sku})`).join(", ")}, optionally with +xp`,
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
