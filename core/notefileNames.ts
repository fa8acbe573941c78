import { notefileKind, type NotefileKind } from "./NotefileKind.js";

/**
 * The naming rules of notefiles, note IDs and change trackers, one set for both ends (reference
 * §4.1, notelib `NotefileIDIsReserved*`). Names beginning with `_` belong to the system, except
 * a few system notefiles hosts are expected to use; `,` separates lists of names inside the
 * module, so no name may contain it. Control characters are refused too: they cannot be typed,
 * and the module's flash records use one as a separator. Each end turns a fault into its own
 * error (the module's `{...}` texts, the hub's HTTP 400s).
 */

/** Reserved-looking notefiles a host may still read and write. */
export const HOST_SYSTEM_NOTEFILES: ReadonlySet<string> = new Set([
  "_track.qo",
  "_log.qo",
  "_health.qo",
  "_health_host.qo",
  "_req.qis",
  "_rsp.qos",
]);

/** Longest notefile name, in characters. */
export const MAX_NOTEFILE_NAME = 128;
/** Longest note ID or change-tracker name, in characters. */
export const MAX_NOTE_ID = 256;

// eslint-disable-next-line no-control-regex
export const FORBIDDEN_IN_NAMES = /[\u0000-\u001f\u007f,]/;

export type NameFault = "invalid" | "reserved" | "unknown-kind";

/** True for names only the system itself may use (a leading `_`, not one of the exceptions). */
export function isReservedNotefile(name: string): boolean {
  return name.startsWith("_") && !HOST_SYSTEM_NOTEFILES.has(name);
}

/**
 * What is wrong with a notefile name, checked in this order: characters and length, reserved
 * names (unless allowed), a missing or unknown extension. Undefined when it is a good name.
 */
export function notefileNameFault(
  name: string,
  options: { allowReserved?: boolean } = {},
): NameFault | undefined {
  if (name === "" || name.length > MAX_NOTEFILE_NAME || FORBIDDEN_IN_NAMES.test(name)) return "invalid";
  if (!options.allowReserved && isReservedNotefile(name)) return "reserved";
  if (!notefileKind(name)) return "unknown-kind";
  return undefined;
}

/** The kind of a name already known to be good. */
export function kindOfGoodName(name: string): NotefileKind {
  const kind = notefileKind(name);
  if (!kind) throw new Error(`kindOfGoodName: ${name} has no notefile extension`);
  return kind;
}

/** True for a note ID either end may store (database notes; `?` is the caller's business). */
export function isValidNoteId(id: string): boolean {
  return id !== "" && id.length <= MAX_NOTE_ID && !FORBIDDEN_IN_NAMES.test(id);
}
