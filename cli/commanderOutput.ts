import { fstatSync, writeSync } from "node:fs";
import type { OutputConfiguration } from "commander";

/** Whether file descriptor `fd` is a pipe, a socket or a file: not a terminal (nor /dev/null). */
function notATerminal(fd: number): boolean {
  try {
    return !fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * Writes all of `text` to `fd` at once, or the rest through Node's stream if the descriptor will
 * not take it (`stream` is asked for only then: asking creates it).
 */
function writeAll(fd: number, stream: () => NodeJS.WriteStream, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done);
  } catch {
    stream().write(bytes.subarray(done)); // a non-blocking pipe that is full: Node's stream waits
  }
}

/** The width commander wraps its help to when it writes to no terminal. */
const NO_TERMINAL_WIDTH = 80;

/** commander's own choice of colours when it cannot ask a terminal (its `useColor`). */
function colourByEnvironment(): boolean {
  const env = process.env;
  if (env["NO_COLOR"] || env["FORCE_COLOR"] === "0" || env["FORCE_COLOR"] === "false") return false;
  return Boolean(env["FORCE_COLOR"] || env["CLICOLOR_FORCE"] !== undefined);
}

/**
 * Where commander writes help, the version and its errors: what it writes by default, but written
 * straight to the file descriptor when it is a pipe or a file, without `process.stdout` or
 * `process.stderr`. Creating those streams for a pipe loads node:net and Node's streams, a good
 * part of what `cardsim --help` and `--version` cost at every start (docs/performance.md, "Command
 * start-up"); a terminal keeps them, for its width and colours.
 */
export function commanderOutput(): Partial<OutputConfiguration> {
  const out: Partial<OutputConfiguration> = {};
  if (notATerminal(1)) {
    out.writeOut = (text) => writeAll(1, () => process.stdout, text);
    out.getOutHelpWidth = () => NO_TERMINAL_WIDTH;
    out.getOutHasColors = colourByEnvironment;
  }
  if (notATerminal(2)) {
    out.writeErr = (text) => writeAll(2, () => process.stderr, text);
    out.getErrHelpWidth = () => NO_TERMINAL_WIDTH;
    out.getErrHasColors = colourByEnvironment;
  }
  return out;
}
