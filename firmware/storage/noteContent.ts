import { decodeBase64 } from "../../core/base64.js";
import { payloadExceedsTemplate, payloadNotBase64, payloadTooLarge } from "../errors.js";
import type { ModuleLog } from "../ModuleLog.js";
import type { NoteWhere } from "./Note.js";
import type { Notefile } from "./Notefile.js";
import { currentTemplate } from "./notefileTemplates.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/** Largest payload a note may carry, decoded (spec Limits: note.add payload 256 bytes). */
export const MAX_PAYLOAD_BYTES = 256;

/** What a host gave for a note's content. */
export interface NoteInput {
  readonly body: JsonObject | undefined;
  /** Base64 text as received; "" counts as no payload. */
  readonly payload: string | undefined;
  /** `full:true`: keep empty fields in templated notes. */
  readonly full: boolean;
}

/** A note's content ready to store. */
export interface NoteContent {
  readonly body: JsonObject | undefined;
  readonly payload: Uint8Array | undefined;
  readonly time: number;
  /** Number of the template the note is fitted to, when the notefile has one. */
  readonly template: number | undefined;
  /** Where the module was (its last fix); kept for untemplated notes only. */
  readonly where?: NoteWhere;
}

/**
 * Checks and shapes a note's content for `file` (which may not exist yet): the payload must be
 * strict base64 of at most 256 bytes (and within a template's `length`); a templated body is
 * fitted to the template, other bodies are stored as given. `time` is the module's note time.
 */
export function prepareNoteContent(
  file: Notefile | undefined,
  input: NoteInput,
  time: number,
  log: ModuleLog,
): NoteContent {
  let payload: Uint8Array | undefined;
  if (input.payload !== undefined && input.payload !== "") {
    payload = decodeBase64(input.payload);
    if (!payload) throw payloadNotBase64();
    if (payload.length > MAX_PAYLOAD_BYTES) throw payloadTooLarge(payload.length, MAX_PAYLOAD_BYTES);
  }
  const current = currentTemplate(file);
  if (!current) return { body: cloneJson(input.body), payload, time, template: undefined };
  const { template, number } = current;
  if (payload && template.length !== undefined && payload.length > template.length) {
    throw payloadExceedsTemplate(payload.length, template.length);
  }
  const fitted = template.fit(input.body, input.full, time);
  if (fitted.dropped.length > 0) {
    log.warn("note fields not in the template were dropped", { file: file!.name, fields: fitted.dropped });
  }
  return { body: fitted.body, payload, time: fitted.time, template: number };
}
