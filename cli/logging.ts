import { pino, type Logger } from "pino";
import pretty from "pino-pretty";
import type { LogFormat, LogLevel } from "./options.js";

/** Pretty lines for people at a terminal, JSON lines for machines (`--log-format`). */
export function prettyLogs(format: LogFormat): boolean {
  if (format !== "auto") return format === "pretty";
  return Boolean(process.stdout.isTTY || process.stderr.isTTY);
}

/**
 * A logger writing to stderr, so stdout stays for what the command reports: one readable line
 * per entry (time, level, source, message, then the entry's fields on one line), or JSON lines.
 */
export function createLogger(options: { level: LogLevel; format: LogFormat; name: string }): Logger {
  const base = { level: options.level, base: { name: options.name } };
  if (!prettyLogs(options.format)) return pino(base, pino.destination({ dest: 2, sync: true }));
  return pino(
    base,
    pretty({
      destination: 2,
      sync: true,
      colorize: Boolean(process.stderr.isTTY),
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
      singleLine: true,
    }),
  );
}
