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
/** The wording a real module used for a request cut short (note-c pull request 53). */
export const jsonPrematureEnd = (near: string): SimError =>
  simError(`cannot interpret JSON: premature end of input near '${echo(near, 32)} ' {io}`);
export const requestTooDeep = (max: number): SimError =>
  simError(`cannot interpret JSON: a request may nest objects and arrays at most ${max} levels deep {io}`);
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

// ntn.status sample of the public schema (ntn.status.rsp), word for word.
export const noNtnModule = (): SimError => simError("no NTN module is connected {no-ntn-module}");
// card.sleep (wording ours: docs/module.md).
export const sleepSecondsInvalid = (got: number): SimError =>
  simError(`card.sleep: seconds must be at least 30, or -1 to reset (got ${got})`);
export const sleepModeInvalid = (mode: string): SimError =>
  simError(`card.sleep: mode "${echo(mode, 32)}" is not one of accel, -accel`);
export const traceModeInvalid = (mode: string): SimError =>
  simError(`card.trace: mode "${echo(mode, 32)}" is not one of on, off`);

// --- storage ---------------------------------------------------------------------------------
export const storageFull = (): SimError =>
  simError("error writing to flash: storage is full {file-storage-full} {full}");

// --- card, hub and env requests ---------------------------------------------------------------
// Argument errors carry no {io}: hosts retry {io} errors, and a bad value fails the same way
// every time. Wording is ours unless noted (docs/module.md).
export const argumentsIncompatible = (request: string, a: string, b: string): SimError =>
  simError(`${request}: ${a} and ${b} cannot be used together {incompatible}`);
export const usageModeInvalid = (mode: string): SimError =>
  simError(`card.usage.get: mode must be total, 1hour, 1day or 30day, not ${echo(mode, 32)}`);
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
// card.wireless and card.transport (wording ours: docs/module.md).
export const wirelessModeInvalid = (mode: string): SimError =>
  simError(`card.wireless: mode "${echo(mode, 32)}" is not one of auto, m, nb, gprs, -`);
export const wirelessMethodInvalid = (method: string): SimError =>
  simError(
    `card.wireless: method "${echo(method, 32)}" is not one of primary, secondary, dual-primary-secondary, dual-secondary-primary, -`,
  );
export const wirelessHoursInvalid = (got: number): SimError =>
  simError(`card.wireless: hours must be a number of hours, or -1 to reset (got ${got})`);
export const transportMethodInvalid = (method: string, allowed: readonly string[]): SimError =>
  simError(`card.transport: method "${echo(method, 32)}" is not one of ${allowed.join(", ")}`);
export const transportSecondsInvalid = (got: number): SimError =>
  simError(`card.transport: seconds must be a number of seconds, or -1 to reset (got ${got})`);
export const hubModeInvalid = (mode: string): SimError =>
  simError(
    `hub.set: mode "${echo(mode)}" is not one of periodic, continuous, minimum, off, dfu, dfu-completed, -`,
  );
export const hubHostInvalid = (): SimError =>
  simError('hub.set: host must be a host name, or "-" for the default');
export const hubPeriodInvalid = (arg: string, got: number): SimError =>
  simError(`hub.set: ${arg} must be a number of minutes, or -1 to reset (got ${got})`);
export const hubDurationInvalid = (got: number): SimError =>
  simError(`hub.set: duration must be at least 15 minutes, or -1 to reset (got ${got})`);
export const hubSecondsInvalid = (got: number): SimError =>
  simError(`hub.set: seconds must be a number of seconds, or -1 to reset (got ${got})`);
export const hubVersionFieldInvalid = (field: string, expected: "a string" | "an integer"): SimError =>
  simError(`hub.set: version.${field} must be ${expected}`);
const LORA_DETAILS = 'hub.set: details must be "-" or {"deveui","appeui","appkey"} in hex';
export const loraDetailsNotObject = (got: string): SimError =>
  simError(`${LORA_DETAILS}: got "${echo(got)}"`);
export const loraDetailMissing = (field: string): SimError =>
  simError(`${LORA_DETAILS}: ${field} is missing`);
export const loraDetailNotHex = (field: string, digits: number): SimError =>
  simError(`${LORA_DETAILS}: ${field} must be ${digits} hex digits`);
// Text of the schema's sample reply (reference Appendix A, env.get).
export const envNotModified = (): SimError => simError("environment hasn't been modified {env-not-modified}");
export const envNamesEmpty = (): SimError => simError("env.get: names must list at least one name");
export const envTemplateRequired = (radio: string): SimError =>
  simError(`env.get: a ${radio} module needs an env.template before it can read environment variables`);
export const envTemplateHintInvalid = (name: string): SimError =>
  simError(`env.template: ${echo(name)} must be a boolean, number or string type hint`);
export const apiVersionUnsupported = (api: number, supported: number): SimError =>
  simError(`card.version: API ${api} is newer than this firmware's API ${supported} {version}`);
export const apiVersionInvalid = (): SimError => simError("card.version: api must be an API major version");
export const sideloadTimeInvalid = (got: number): SimError =>
  simError(`card.time: time must be UNIX epoch seconds after 2017 (got ${got})`);
export const restoreNeedsDelete = (radio: string): SimError =>
  simError(`card.restore: a ${radio} module cannot keep its configuration; delete:true is required`);
export const voltageModeInvalid = (mode: string, problem: string): SimError =>
  simError(
    `card.voltage: mode "${echo(mode)}" is neither a preset (default, lipo, l91, alkaline, tad, lic, ?) nor a threshold string: ${problem}`,
  );
export const voltageHoursInvalid = (got: number): SimError =>
  simError(`card.voltage: hours must be 1 to 720 (got ${got})`);
export const voltageOffsetInvalid = (got: number): SimError =>
  simError(`card.voltage: offset must be 0 to 720 hours (got ${got})`);
export const voltageLimitsInvalid = (vmin: number, vmax: number): SimError =>
  simError(`card.voltage: vmin (${vmin}) must be below vmax (${vmax})`);
export const calibrationInvalid = (got: number): SimError =>
  simError(`card.voltage: calibration must be -1 to 2 volts (got ${got})`);
export const randomModeInvalid = (): SimError => simError('card.random: mode must be "payload"');
export const randomPayloadCountInvalid = (max: number): SimError =>
  simError(`card.random: count must be 1 to ${max} bytes with mode "payload"`);
export const randomCountInvalid = (): SimError =>
  simError("card.random: count must be a positive 32-bit number");
export const emailInvalid = (got: string): SimError =>
  simError(`card.contact: email "${echo(got)}" is not an email address`);
export const i2cAddressInvalid = (got: number): SimError =>
  simError(`card.io: i2c must be a 7-bit address from 8 to 119, or -1 for the default (got ${got})`);
export const ioModeInvalid = (got: string, modes: readonly string[]): SimError =>
  simError(`card.io: mode "${echo(got)}" is not one of ${modes.join(", ")}`);
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
// Bad card.attn values fail the same way every time: no {io}, which note-c and note-python retry.
export const attnUnknownMode = (mode: string): SimError =>
  simError(`card.attn: unknown mode keyword: ${echo(mode)}`);
export const attnFilesRequired = (): SimError =>
  simError("card.attn: mode files needs a files array naming the notefiles to watch");
export const attnBadFile = (name: string): SimError =>
  simError(`card.attn: ${echo(name)} is not a notefile name`);
export const attnWatchdogSeconds = (min: number): SimError =>
  simError(`card.attn: watchdog needs seconds of at least ${min}`);
export const attnSleepSeconds = (): SimError => simError("card.attn: sleep needs seconds");
export const attnBadPayload = (): SimError => simError("card.attn: payload is not valid base64");
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
/**
 * note.get / note.delete on a notefile that does not exist: notelib's text (opening notefile,
 * {notefile-noexist}), with {note-noexist} kept at the end because public host code tests for it
 * here (a note read from a database or queue that was never created counts as "no such note").
 */
export const getNotefileMissing = (name: string, noteId: boolean): SimError =>
  simError(
    `${noteId ? "error getting note: " : ""}{notefile-noexist} opening notefile: notefile does not exist: ${echo(name)} {note-noexist}`,
  );
export const deleteNotefileMissing = (name: string): SimError =>
  simError(
    `error deleting note: {notefile-noexist} opening notefile: notefile does not exist: ${echo(name)} {note-noexist}`,
  );
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

// --- flash store (firmware/storage/flash) --------------------------------------------------
export const flashWriteFailed = (detail: string): SimError =>
  simError(`error writing to flash: ${echo(detail, 160)} {io}`);
export const flashUnusable = (): SimError =>
  simError("flash is unavailable after a failed write: restart the module to recover it {io}");
export const flashTooNew = (file: string, version: number, supported: number): SimError =>
  simError(
    `this flash was written by a newer cardsim: ${echo(file)} has storage format version ${version}, ` +
      `this cardsim reads up to version ${supported}. Upgrade cardsim, or give the module another flash directory`,
  );
export const flashNotOurs = (file: string): SimError =>
  simError(
    `refusing to use this directory as flash: ${echo(file)} exists but is not a cardsim flash superblock`,
  );
export const flashUnreadable = (detail: string): SimError =>
  simError(`cannot open flash: ${echo(detail, 200)}`);
export const flashInUse = (dir: string, pid: number): SimError =>
  simError(
    `flash directory ${echo(dir, 200)} is in use by process ${pid}; stop that module first ` +
      `(if no such process is running, delete ${echo(dir, 200)}/LOCK)`,
  );
export const noFlashDirectory = (dir: string): SimError =>
  simError(`no flash directory at ${echo(dir, 200)}`);
export const notAFlash = (dir: string): SimError =>
  simError(`${echo(dir, 200)} holds no cardsim flash (no flash.json, no journal)`);

// --- location, motion, temperature, light, AUX pins (docs/world.md) ------------------------
// Wording is ours, except where a section of docs/world.md names the vendor's text.
export const argumentOutOfRange = (request: string, arg: string, expected: string, got: unknown): SimError =>
  simError(`${request}: ${arg} must be ${expected} (got ${echo(String(got))})`);
export const argumentNotOneOf = (
  request: string,
  arg: string,
  got: string,
  allowed: readonly string[],
): SimError =>
  simError(
    `${request}: ${arg} "${echo(got)}" is not one of ${allowed.map((a) => (a === "" ? '""' : a)).join(", ")}`,
  );
export const latLonTogether = (request: string): SimError =>
  simError(`${request}: lat and lon must be given together`);
export const locationNeedsGps = (mode: string, radio: string): SimError =>
  simError(
    `card.location.mode: ${mode} mode needs a GPS receiver, which the ${radio} module does not have {not-supported}`,
  );
export const fixedNeedsLocation = (): SimError =>
  simError("card.location.mode: fixed mode needs lat and lon (the module knows no location to use)");
export const geofenceNeedsCenter = (): SimError =>
  simError("card.location.mode: a geofence (max) needs lat and lon for its center");
export const queueFileRequired = (request: string, file: string): SimError =>
  simError(`${request}: file must be an outbound queue (.qo or .qos), not ${echo(file)}`);
export const triangulateCellNeedsRadio = (radio: string): SimError =>
  simError(
    `card.triangulate: cell triangulation needs a cellular radio, which the ${radio} module does not have {not-supported}`,
  );
/** The vendor's documented text for a module without a light sensor on its I2C bus. */
export const illuminationUnavailable = (): SimError => simError("illumination sensor is not available");
export const auxUsageNeedsGpio = (): SimError => simError('card.aux: usage needs mode "gpio"');
export const auxUsageTooLong = (count: number): SimError =>
  simError(`card.aux: usage lists at most 4 pins (AUX1 to AUX4), got ${count}`);
export const ledNeedsAuxMode = (mode: string): SimError =>
  simError(`card.led: the AUX pins are in ${echo(mode)} mode; set card.aux mode to led, rgb or neo first`);
export const ledColorNotInMode = (color: string, mode: string, colors: readonly string[]): SimError =>
  simError(`card.led: ${echo(color)} is not a color of ${mode} mode (${colors.join(", ")})`);

// --- firmware updates (dfu.get, dfu.status, card.dfu) ------------------------------------------
// The tag {dfu-not-ready} is the real module's (note-c's tests quote its reply while DFU mode is
// starting); the prose is ours (docs/dfu.md).
export const dfuModeRequired = (): SimError =>
  simError("dfu.get: the module is not in DFU mode; send hub.set mode:dfu first {dfu-not-ready}");
export const dfuModeStarting = (): SimError =>
  simError(
    "dfu.get: DFU mode is not fully active yet: the module is still ending its hub session {dfu-not-ready}",
  );
export const dfuNoImage = (mode: string): SimError =>
  simError(`dfu.get: no host firmware is ready to read (dfu.status mode is ${mode})`);
export const dfuNegative = (arg: string): SimError => simError(`dfu.get: ${arg} must not be negative`);
export const dfuPastEnd = (offset: number, length: number): SimError =>
  simError(`dfu.get: offset ${offset} is past the end of the ${length}-byte image`);
export const dfuReadTooLong = (length: number, max: number): SimError =>
  simError(`dfu.get: at most ${max} bytes can be read at a time, not ${length} {too-big}`);
export const dfuVvalueNotSwitch = (text: string): SimError =>
  simError(`dfu.status: vvalue "${echo(text)}" must give each state 1 (downloads on) or 0 (off)`);
export const cardDfuSecondsNeedOff = (): SimError =>
  simError("card.dfu: seconds is the time outboard updates stay off, so it needs off:true");
export const dfuNoImageRoom = (request: string): SimError =>
  simError(`${request}: this module has no flash set aside for firmware images {not-supported}`);

// --- web requests (web, web.get, web.post, web.put, web.delete) ------------------------------
// The offline text is the real module's (the vendor's web transactions guide); the tags are the
// real module's ({too-big}, {timeout}, {web-payload}, {incompatible}, {network}); the prose
// elsewhere is ours (docs/module.md, "Web requests").
export const webOffline = (): SimError => simError("web operations require being online (hub.set)");
export const webNoRoute = (request: string, route: string): SimError =>
  simError(
    `${request}: no proxy route with alias ${echo(route)} serves this device (the hub needs an enabled route of type proxy with that alias)`,
  );
export const webAnswerTooBig = (request: string, limit: number, binary: boolean): SimError =>
  simError(
    `${request}: the answer is larger than the ${limit} bytes ${binary ? "the binary buffer holds" : "a reply carries"} (read it in parts with offset and max${binary ? "" : ", or into the binary buffer with binary:true"}) {too-big}`,
  );
export const webTimeout = (request: string, detail: string): SimError =>
  simError(`${request}: the route's endpoint did not answer in time (${echo(detail, 120)}) {timeout}`);
export const webUnreachable = (request: string, detail: string): SimError =>
  simError(`${request}: the route's endpoint cannot be reached: ${echo(detail, 160)}`);
export const webTransformFailed = (request: string, detail: string): SimError =>
  simError(`${request}: ${echo(detail, 200)}`);
export const webPayloadDamaged = (request: string): SimError =>
  simError(`${request}: the data does not match its MD5 (status) {web-payload}`);
export const webFragmentRefused = (request: string, detail: string): SimError =>
  simError(`${request}: ${echo(detail, 200)}`);
export const webHubRefused = (request: string, detail: string): SimError =>
  simError(`${request}: the hub refused the request: ${echo(detail, 200)}`);
export const webLinkFailed = (request: string, detail: string): SimError =>
  simError(`${request}: the hub's answer did not arrive: ${echo(detail, 160)} {network}`);
export const webPayloadNotBase64 = (request: string): SimError =>
  simError(`${request}: payload is not valid base64`);
export const webStatusInvalid = (request: string): SimError =>
  simError(`${request}: status must be an MD5 digest of 32 hexadecimal characters`);
export const webMethodInvalid = (method: string, methods: readonly string[]): SimError =>
  simError(`web: method "${echo(method)}" is not one of ${methods.join(", ")}`);
export const webTotalInvalid = (request: string, total: number, max: number): SimError =>
  simError(
    `${request}: total must be 1 to ${max} bytes, the largest fragmented upload (got ${total})${total > max ? " {too-big}" : ""}`,
  );
export const webOffsetNeedsTotal = (request: string): SimError =>
  simError(`${request}: offset needs total: a fragmented upload gives both`);
export const webOffsetInvalid = (request: string, offset: number): SimError =>
  simError(`${request}: offset must be 0 or more (got ${offset})`);
export const webFragmentPastTotal = (
  request: string,
  offset: number,
  length: number,
  total: number,
): SimError =>
  simError(`${request}: a fragment of ${length} bytes at offset ${offset} ends past total ${total}`);
export const webFragmentEmpty = (request: string): SimError =>
  simError(`${request}: a fragment needs its bytes: payload, or binary:true`);
export const webSecondsInvalid = (request: string, got: number): SimError =>
  simError(`${request}: seconds must be a number of seconds, or -1 for the default of 90 (got ${got})`);
export const webMaxInvalid = (request: string, got: number): SimError =>
  simError(`${request}: max must be a number of bytes (got ${got})`);
export const webFileNotLocal = (request: string, file: string): SimError =>
  simError(`${request}: file must be a local database notefile (.dbx), not ${echo(file)}`);

// --- penalty boxes (card.wireless.penalty) ----------------------------------------------------
/** Our wording: the real module's text for an out-of-range penalty setting is not published. */
export const penaltySettingInvalid = (field: string, value: number, rule: string): SimError =>
  simError(`card.wireless.penalty: ${field} ${value} is out of range (${rule}) {syntax}`);
