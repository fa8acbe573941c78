import { simError, type SimError } from "./SimError.js";

/**
 * Every error text the module sends, in one place. Wording follows the public reference where it
 * is known (reference/notecard-behavior.md §3.3); where it is not, the text is ours and documented
 * in docs/module.md. Hosts only test the `{tags}`, never the prose.
 */

/** Keeps echoed input short and printable. */
function echo(text: string, max = 64): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

// --- wire and JSON -------------------------------------------------------------------------
export const jsonObjectExpected = (rest: string): SimError =>
  simError(`JSON object expected: ${echo(rest)} {io}`);
export const lineTooLong = (max: number): SimError =>
  simError(`request too large: a request line may be at most ${max} bytes {io} {too-big}`);
export const wrongFieldType = (got: string): SimError =>
  simError(`cannot interpret JSON: ${got} being placed into a non-${got} field {io}`);
export const crcMismatch = (): SimError => simError("CRC error: request does not match its crc field {io}");
export const crcMalformed = (): SimError =>
  simError('CRC error: crc field must be "SSSS:CCCCCCCC" at the end of the request {io}');
export const reqAndCmd = (): SimError => simError("request must have either req or cmd, not both {io}");
export const noReq = (): SimError => simError("no request specified: req or cmd is required {io}");
export const reqNotString = (): SimError => simError("request name must be a string {io}");
export const unknownRequest = (name: string): SimError =>
  simError(`unknown request: ${echo(name)} {io} {not-supported}`);
export const notSupportedOnVariant = (variant: string): SimError =>
  simError(`request not supported for ${variant} {not-supported}`);
export const argumentNotSupportedOnVariant = (arg: string, variant: string): SimError =>
  simError(`${arg} is not supported for ${variant} {not-supported}`);
export const notYetBuilt = (name: string, what: string): SimError =>
  simError(`${name}: ${what} is not available in this simulator release {not-supported}`);

// --- storage ---------------------------------------------------------------------------------
export const storageFull = (): SimError =>
  simError("error writing to flash: storage is full {file-storage-full} {full}");

// --- card, hub and env requests ---------------------------------------------------------------
// Argument errors carry no {io}: hosts retry {io} errors, and a bad value fails the same way
// every time. Wording is ours unless noted (docs/module.md).
export const argumentInvalid = (request: string, arg: string, why: string): SimError =>
  simError(`${request}: ${arg} ${why}`);
export const argumentsIncompatible = (request: string, a: string, b: string): SimError =>
  simError(`${request}: ${a} and ${b} cannot be used together {incompatible}`);
export const argumentRequired = (request: string, arg: string): SimError =>
  simError(`${request}: ${arg} is required`);
export const voltageVariableInvalid = (
  request: string,
  arg: string,
  text: string,
  problem: string,
): SimError =>
  simError(`${request}: ${arg} "${echo(text)}" is not a valid voltage-variable string: ${problem}`);
export const notSupportedOnExtendedPower = (what: string): SimError =>
  simError(`${what} is not supported on the extended-power (XP) module {not-supported}`);
export const hubModeInvalid = (mode: string): SimError =>
  simError(
    `hub.set: mode "${echo(mode)}" is not one of periodic, continuous, minimum, off, dfu, dfu-completed, -`,
  );
export const loraDetailsInvalid = (why: string): SimError =>
  simError(`hub.set: details must be "-" or {"deveui","appeui","appkey"} in hex: ${why}`);
// Text of the schema's sample reply (reference Appendix A, env.get).
export const envNotModified = (): SimError => simError("environment hasn't been modified {env-not-modified}");
export const envTemplateRequired = (radio: string): SimError =>
  simError(`env.get: a ${radio} module needs an env.template before it can read environment variables`);
export const envTemplateHintInvalid = (name: string): SimError =>
  simError(`env.template: ${echo(name)} must be a boolean, number or string type hint`);
export const apiVersionUnsupported = (api: number, supported: number): SimError =>
  simError(`card.version: API ${api} is newer than this firmware's API ${supported} {version}`);
export const restoreNeedsDelete = (radio: string): SimError =>
  simError(`card.restore: a ${radio} module cannot keep its configuration; delete:true is required`);
export const voltageModeInvalid = (mode: string, problem: string): SimError =>
  simError(
    `card.voltage: mode "${echo(mode)}" is neither a preset (default, lipo, l91, alkaline, tad, lic, ?) nor a threshold string: ${problem}`,
  );
