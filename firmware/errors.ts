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

// --- notes, notefiles, templates, variables ------------------------------------------------
// Wording follows notelib (the hub-side notefile engine, kept "consistent with notecard") where
// the firmware's text is not public; the choices are listed in docs/module.md, "Notes and
// notefiles". Hosts test the {tags}.
export const noNotefileSpecified = (): SimError => simError("no notefile specified");
export const noNotefilesSpecified = (): SimError => simError("no notefiles were specified");
export const invalidNotefileName = (name: string): SimError =>
  simError(
    `invalid notefile name: ${echo(name)} (commas and control characters are not allowed) {notefile-bad-name}`,
  );
export const reservedNotefileName = (name: string): SimError =>
  simError(`reserved notefile name: ${echo(name)} {notefile-bad-name}`);
export const notefileTypeNotRecognized = (name: string): SimError =>
  simError(
    `notefile type not recognized: ${echo(name)} (names end in .qo, .qos, .qi, .qis, .db, .dbs or .dbx) {notefile-bad-name}`,
  );
export const notefileNotFound = (name: string): SimError =>
  simError(`{notefile-noexist} opening notefile: notefile does not exist: ${echo(name)}`);
export const invalidNoteId = (id: string): SimError =>
  simError(`invalid note ID: ${echo(id)} (commas and control characters are not allowed)`);
export const invalidTrackerName = (tracker: string): SimError =>
  simError(`invalid tracker name: ${echo(tracker)} (commas and control characters are not allowed)`);
export const reservedTrackerName = (tracker: string): SimError =>
  simError(`cannot use this reserved tracker name: ${echo(tracker)}`);
export const noteIdRequired = (): SimError => simError("note ID is required when using a database notefile");
export const noteIdOnQueue = (): SimError =>
  simError("note ID should not be specified when using a queue notefile");
export const noNoteId = (): SimError => simError("no note ID specified");
export const noteExists = (id: string): SimError =>
  simError(`{note-exists} note already exists: ${echo(id)}`);
export const noteNotFound = (id: string): SimError =>
  simError(`error getting note: {note-noexist} note not found: ${echo(id)}`);
export const queueEmpty = (): SimError => simError("no notes available in queue {note-noexist}");
export const noteDeleted = (id: string): SimError =>
  simError(`note has been deleted: ${echo(id)} {note-noexist}`);
export const deleteNoteNotFound = (id: string): SimError =>
  simError(`error deleting note: {note-noexist} cannot delete note: note not found: ${echo(id)}`);
export const queueDisallowed = (name: string): SimError =>
  simError(`{notefile-queue-disallowed} operation not allowed on queue notefiles: ${echo(name)}`);
export const notAddableNotefile = (name: string): SimError =>
  simError(
    `cannot add notes to inbound queue ${echo(name)}: notes are added to .qo, .qos, .db, .dbs or .dbx notefiles`,
  );
export const notReadableNotefile = (name: string): SimError =>
  simError(
    `cannot get notes from outbound queue ${echo(name)}: notes are read from .qi, .qis, .db, .dbs or .dbx notefiles`,
  );
export const fileRequiredOnVariant = (variant: string): SimError =>
  simError(`no notefile specified: file is required on ${variant}`);
export const noteNeedsContent = (): SimError =>
  simError("no body or payload specified: a note needs one or both");
export const payloadNotBase64 = (): SimError => simError("payload is not valid base64");
export const payloadTooLarge = (bytes: number, max: number): SimError =>
  simError(`payload too large: ${bytes} bytes, a note carries at most ${max} {too-big}`);
export const noteMaxReached = (name: string, max: number): SimError =>
  simError(`cannot add note: ${echo(name)} already holds ${max} notes (max) {note-max}`);
export const invalidMax = (max: number): SimError => simError(`max must be -1 or at least 1 (not ${max})`);
export const liveNeedsQueue = (): SimError =>
  simError(
    "live notes bypass flash on their way out: live:true needs an outbound queue (.qo, .qos) {incompatible}",
  );
export const templateExpected = (kind: string, _field: string): SimError =>
  simError(`error adding note: ${kind} expected because of template`);
export const templateValueOutOfRange = (field: string, value: number, what: string): SimError =>
  simError(
    `error adding note: ${value} does not fit the ${what} field ${echo(field)} because of template {template-incompatible}`,
  );
export const compactStringTooLong = (): SimError =>
  simError("error adding note: compact mode only supports strings up to 255 bytes {template-incompatible}");
export const templateStringTooLong = (field: string, max: number): SimError =>
  simError(`error adding note: string ${echo(field)} is longer than ${max} bytes {template-incompatible}`);
export const templateArrayTooLong = (field: string, max: number): SimError =>
  simError(
    `error adding note: array ${echo(field)} has more than ${max} elements because of template {template-incompatible}`,
  );
export const payloadExceedsTemplate = (bytes: number, length: number): SimError =>
  simError(
    `error adding note: payload is ${bytes} bytes but the template allows ${length} {template-incompatible}`,
  );
export const templateHintInvalid = (field: string, hint: unknown): SimError =>
  simError(
    `error creating template: ${echo(field)}: ${echo(JSON.stringify(hint) ?? "null")} is not a type hint (true, 11-18, 21-28, 12.1, 14.1, 18.1, a string, an array or an object)`,
  );
export const templateEmptyArray = (field: string): SimError =>
  simError(`error creating template: ${echo(field)}: an array hint needs at least one element`);
export const templateCompactKeyHint = (key: string, hints: string): SimError =>
  simError(`error creating template: ${key} in a compact template takes ${hints}`);
export const templateOnInbound = (name: string): SimError =>
  simError(
    `cannot set a template on inbound queue ${echo(name)}: templates apply to .qo, .qos, .db, .dbs and .dbx notefiles`,
  );
export const templateFormatInvalid = (format: string): SimError =>
  simError(`unknown template format: ${echo(format)} (use "compact", or omit format)`);
export const templateLengthInvalid = (length: number, max: number): SimError =>
  simError(`template length must be -1 (none) or 0 to ${max} bytes (not ${length})`);
export const templatePortInvalid = (port: number): SimError =>
  simError(`template port must be -1 (none) or 1 to 100 (not ${port})`);
export const templatePortRequired = (variant: string): SimError =>
  simError(`a template needs a port (1 to 100) on ${variant}`);
export const templateCompactRequired = (variant: string): SimError =>
  simError(`a template must use format "compact" on ${variant}`);
export const templatePortInUse = (port: number, file: string): SimError =>
  simError(`template port ${port} is already used by ${echo(file)}`);
export const clearNeedsOutboundQueue = (name: string): SimError =>
  simError(`file.clear empties outbound queues (.qo, .qos); ${echo(name)} is not one`);
export const noVariableName = (): SimError => simError("no variable name specified");
export const varNeedsValue = (): SimError => simError("var.set needs a text, value or flag");
export const varNeedsDatabase = (name: string): SimError =>
  simError(
    `{notefile-queue-disallowed} variables are kept in database notefiles (.db, .dbs, .dbx), not ${echo(name)}`,
  );
export const changesMaxInvalid = (max: number): SimError =>
  simError(`max must be -1 (all) or at least 1 (not ${max})`);
