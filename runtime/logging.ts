import { pino, type Logger } from "pino";
import pretty from "pino-pretty";
import type { ModuleLog } from "../firmware/ModuleLog.js";
import type { LogFormat, LogLevel } from "./logLevels.js";

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

/**
 * A module's logger (`name` "module") and the rig's log options written through it. It logs only
 * warnings until the caller has every link up and sets `logger.level` back to `level`: a mistake
 * (a port in use, a missing tool) is then the one line the user reads, not start-up chatter.
 */
export function moduleLogger(options: { level: LogLevel; format: LogFormat }): {
  logger: Logger;
  log: ModuleLog;
  hilLog: (message: string, fields?: Record<string, unknown>) => void;
  onSerialStatus: (status: { device: string; open: boolean; error?: string }) => void;
} {
  const logger = createLogger({ level: options.level, format: options.format, name: "module" });
  if (logger.levelVal < logger.levels.values["warn"]!) logger.level = "warn";
  return {
    logger,
    log: pinoModuleLog(logger),
    hilLog: (message, fields) => logger.info(fields ?? {}, message),
    onSerialStatus: ({ device, open, error }) =>
      open
        ? logger.info({ device }, "serial device open")
        : logger.warn({ device, error }, "serial device gone; reopening when it is back"),
  };
}

/** A module log written through pino. */
export function pinoModuleLog(logger: Logger): ModuleLog {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
