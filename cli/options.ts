import { InvalidArgumentError, type Command } from "commander";
import { resolveVariant, VARIANTS, type Variant } from "../firmware/Variant.js";
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from "../runtime/logLevels.js";

export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel };

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
      `unknown module "${value}"; one of ${all.map((v) => `${v.name} (${v.sku})`).join(", ")}, optionally with +xp or +starnote`,
    );
  }
  return found;
}

export function parseInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return n;
}

export function parseLogLevel(value: string): LogLevel {
  const level = value.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new InvalidArgumentError(`use one of ${LOG_LEVELS.join(", ")} (info shows what matters)`);
  }
  return level as LogLevel;
}

export function parseLogFormat(value: string): LogFormat {
  const format = value.trim().toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidArgumentError(
      "use pretty (lines for people), json (one JSON object a line) or auto (pretty on a terminal)",
    );
  }
  return format as LogFormat;
}

/** The logging options every long-running command takes. */
export interface LogOptions {
  logLevel: LogLevel;
  logFormat: LogFormat;
}

export function addLogOptions<C extends { option: Command["option"] }>(command: C): C {
  command.option(
    "--log-level <LEVEL>",
    `${LOG_LEVELS.join(", ")} (logs go to stderr)`,
    parseLogLevel,
    "info",
  );
  command.option(
    "--log-format <FORMAT>",
    "pretty (lines for people), json (JSON lines), or auto: pretty when the output is a terminal",
    parseLogFormat,
    "auto",
  );
  return command;
}
