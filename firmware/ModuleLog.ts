/** Structured log of a module; the edge backs it with pino, tests with an array. */
export interface ModuleLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLog: ModuleLog = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** Keeps log lines in memory (tests assert on them). */
export class MemoryLog implements ModuleLog {
  readonly lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  debug(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "error", message, fields });
  }
}
