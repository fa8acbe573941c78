import type { Logger } from "pino";
import type { ModuleLog } from "../firmware/ModuleLog.js";

/** A module log written through pino. */
export function pinoModuleLog(logger: Logger): ModuleLog {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
