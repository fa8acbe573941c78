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
export const unknownArguments = (name: string, fields: readonly string[]): SimError =>
  simError(
    `${name}: unrecognized argument${fields.length > 1 ? "s" : ""}: ${fields.map((f) => echo(f, 32)).join(", ")} {syntax}`,
  );
export const notYetBuilt = (name: string, what: string): SimError =>
  simError(`${name}: ${what} is not available in this simulator release {not-supported}`);

// --- storage ---------------------------------------------------------------------------------
export const storageFull = (): SimError =>
  simError("error writing to flash: storage is full {file-storage-full} {full}");
