/**
 * A mistake the person at the command line can fix (a port in use, a missing tool, a wrong
 * option): printed as one line saying what is wrong and what to do, exit status 2, no stack.
 */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode = 2;
}

/**
 * Whether `error` is a CliError, by its name: the command line's start path is one bundled file
 * (tools/bundleCli.js) while what a subcommand loads later comes from dist/ with its own copy of
 * this class, so `instanceof` would miss a mistake thrown there.
 */
export function isCliError(error: unknown): error is CliError {
  return error instanceof Error && error.name === "CliError";
}

/** The `--flag HOST:PORT` a listening address came from, for `inUse`. */
export interface ListenSource {
  readonly flag: string;
  readonly host: string;
  readonly port: number;
}

/** Turns a failure to listen into the user's words, naming the flag that chose the address. */
export function listenFailure(error: unknown, source: ListenSource): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${source.host}:${source.port}`;
  if (code === "EADDRINUSE")
    return new CliError(
      `${where} is already in use (another cardsim?): stop that program, or choose another address with ${source.flag} HOST:PORT (port 0 picks a free one)`,
    );
  if (code === "EACCES")
    return new CliError(`not allowed to listen on ${where}: choose a port above 1023 with ${source.flag}`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return new CliError(`${source.host} is not an address of this machine: fix ${source.flag}`);
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs `work`; any error it throws is the user's to fix (wiring, devices, tools), said in one line. */
export async function userFacing<T>(work: () => T | Promise<T>, hint?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCliError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(hint ? `${message}: ${hint}` : message);
  }
}

/**
 * Whether `error` is commander's InvalidArgumentError (an option's value refused), by its code:
 * the start bundle holds its own copy of commander (tools/bundleCli.js) and what a subcommand
 * loads later imports node_modules' copy, whose class `instanceof` would miss.
 */
function isInvalidArgument(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "commander.invalidArgument";
}

/** Whether an error is a mistake to report in one line (exit 2) rather than a fault of cardsim. */
export function isUserMistake(error: unknown): boolean {
  if (isCliError(error) || isInvalidArgument(error)) return true;
  // The module's own refusals (flash in use, unreadable, of a newer format) are the user's to fix.
  return error instanceof Error && error.name === "SimError";
}

/** One line for any error: the message of a mistake, or a fault with the way to see its stack. */
export function oneLine(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
  if (isUserMistake(error)) return message;
  return `${message} (this is a fault of cardsim: run again with CARDSIM_DEBUG=1 to see where, and report it)`;
}
