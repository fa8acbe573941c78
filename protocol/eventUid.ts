import { canonicalJson } from "../core/json.js";
import { md5Hex } from "../core/md5.js";
import type { NoteRecord } from "./NoteRecord.js";

const encoder = new TextEncoder();

/**
 * The UID of the event a device's note makes (notelib `lib/event.go`: an MD5 over what the
 * note is, formatted as a UUID), so that the same note uploaded twice (a lost reply, a power
 * loss mid-sync, a killed process) is one event. What goes in: the device, the tracker session
 * its notes were sent under (a module whose flash was erased starts a new one, so its new notes
 * never collide with old ones), the notefile, the note's ID, update count and time, its body (keys
 * sorted) and payload, each ended by a NUL. `md5` may be a faster implementation of the same
 * digest of the text's UTF-8 (the hub passes the platform's); `bodyText` the body's `canonicalJson`,
 * when the caller has it already.
 */
export function deviceEventUid(
  device: string,
  trackerSession: string,
  file: string,
  note: NoteRecord,
  md5: (text: string) => string = (text) => md5Hex(encoder.encode(text)),
  bodyText: string | undefined = note.body === undefined ? undefined : canonicalJson(note.body),
): string {
  const body = note.deleted ? "deleted" : (bodyText ?? "");
  // One template rather than an array joined: the same text, one string built.
  const text = `${device}\u0000${trackerSession}\u0000${file}\u0000${note.id}\u0000${note.updates}\u0000${note.when}\u0000${body}\u0000${note.payload ?? ""}\u0000`;
  return uuidFromHex(md5(text));
}

/** 32 hex digits as a UUID, version 8 (custom) and the RFC 9562 variant. */
export function uuidFromHex(hex: string): string {
  const v = `8${hex.slice(13, 16)}`;
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16) + hex.slice(17, 20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${v}-${variant}-${hex.slice(20, 32)}`;
}

/** The `req` of a device note's event (notelib): a deleted database note, an update, or an add. */
export function eventRequest(note: NoteRecord, queue: boolean): "note.add" | "note.update" | "note.delete" {
  if (note.deleted && !queue) return "note.delete";
  if (note.updates !== 0) return "note.update";
  return "note.add";
}
