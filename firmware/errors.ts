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

// --- binary buffer (card.binary*) and ATTN (card.attn) -------------------------------------
/** The last transfer into the binary buffer failed; hosts test `{bad-bin}` and retry the put. */
export const binaryBad = (reason: string, fields?: Record<string, unknown>): SimError =>
  simError(`binary buffer: ${reason} {bad-bin}`, fields);
export const binaryEmpty = (): SimError => simError("binary buffer is empty {bad-bin}");
export const binaryOutOfRange = (offset: number, length: number, size: number): SimError =>
  simError(`binary buffer: offset ${offset} and length ${length} are beyond its ${size} bytes {bad-bin}`);
export const binaryOffsetMisaligned = (offset: number, size: number): SimError =>
  simError(`binary buffer: offset ${offset} is past the end of its ${size} bytes {bad-bin}`);
export const binaryTooBig = (cobs: number, offset: number, max: number): SimError =>
  simError(
    `binary buffer: ${cobs} encoded bytes at offset ${offset} cannot fit its capacity of ${max} bytes {too-big}`,
  );
export const binaryCobsMismatch = (expected: number, actual: number): SimError =>
  simError(`binary buffer: the data encodes to ${actual} bytes, not the ${expected} requested {bad-bin}`);
export const binaryNegative = (field: string): SimError =>
  simError(`binary buffer: ${field} must not be negative {io}`);
export const binaryBadStatus = (): SimError =>
  simError("binary buffer: status must be an MD5 digest of 32 hexadecimal characters {io}");
export const attnUnknownMode = (mode: string): SimError =>
  simError(`card.attn: unknown mode keyword: ${echo(mode)} {io}`);
export const attnFilesRequired = (): SimError =>
  simError("card.attn: mode files needs a files array naming the notefiles to watch {io}");
export const attnBadFile = (name: string): SimError =>
  simError(`card.attn: ${echo(name)} is not a notefile name {io}`);
export const attnWatchdogSeconds = (min: number): SimError =>
  simError(`card.attn: watchdog needs seconds of at least ${min} {io}`);
export const attnSleepSeconds = (): SimError => simError("card.attn: sleep needs seconds {io}");
export const attnBadPayload = (): SimError => simError("card.attn: payload is not valid base64 {io}");
