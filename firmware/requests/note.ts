import {
  changesMaxInvalid,
  deleteNotefileMissing,
  deleteNoteNotFound,
  fileRequiredOnVariant,
  getNotefileMissing,
  invalidMax,
  liveNeedsQueue,
  noNoteId,
  noNotefileSpecified,
  notAddableNotefile,
  notReadableNotefile,
  noteDeleted,
  noteExists,
  noteIdOnQueue,
  noteIdRequired,
  noteMaxReached,
  noteNeedsContent,
  noteNotFound,
  notefileNotFound,
  notYetBuilt,
  queueDisallowed,
  queueEmpty,
  templateCompactRequired,
  templateFormatInvalid,
  templateLengthInvalid,
  templatePortInUse,
  templatePortInvalid,
  templatePortRequired,
} from "../errors.js";
import { collectChanges, DEFAULT_CHANGES_BATCH } from "../storage/noteChanges.js";
import { MAX_PAYLOAD_BYTES, prepareNoteContent } from "../storage/noteContent.js";
import { checkNoteId, checkNotefileName, checkTrackerName } from "../storage/notefileNames.js";
import { clearTemplate, currentTemplate, portOwner, setTemplate } from "../storage/notefileTemplates.js";
import { deleteNote, newNoteId, noteInfo, purgeTombstones, storeNote } from "../storage/noteOps.js";
import { Template, type TemplateDefinition } from "../storage/Template.js";
import type { Variant } from "../Variant.js";
import type { Args } from "./Args.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/** The notefile a request names, or its default; "" counts as not given. */
function fileArg(args: Args, fallback?: string): string {
  const file = args.string("file");
  if (file) return file;
  if (fallback) return fallback;
  throw noNotefileSpecified();
}

/** `note.add` `max`: undefined when not limiting (absent, 0 or -1). */
function maxArg(args: Args): number | undefined {
  const max = args.int("max");
  if (max === undefined || max === 0 || max === -1) return undefined;
  if (max < -1) throw invalidMax(max);
  return max;
}

/**
 * Variants whose templates must carry a port and use the compact format: LoRa, satellite, and a
 * module paired with a Starnote (note.template.req schema, `port` and `format`).
 */
function needsCompactPortTemplates(variant: Variant): boolean {
  return variant.lora || variant.ntn || variant.starnote;
}

function noteAdd({ name, args, module }: RequestContext): JsonObject {
  const live = args.bool("live");
  if (args.bool("binary")) throw notYetBuilt(name, "sending the binary buffer (binary:true)");
  if (args.string("key")) throw notYetBuilt(name, "end-to-end encryption of note bodies (key)");
  const given = args.string("file");
  if (!given && module.variant.lora) throw fileRequiredOnVariant(module.variant.radio);
  const fileName = given || "data.qo";
  const kind = checkNotefileName(fileName);
  if (kind.queue && kind.direction === "in") throw notAddableNotefile(fileName);
  const body = args.object("body");
  const payload = args.string("payload");
  if (body === undefined && !payload) throw noteNeedsContent();
  const noteArg = args.string("note");
  const full = args.bool("full");
  const sync = args.bool("sync");
  const max = maxArg(args);
  // Every request is durable before it replies, so `verify` (flush now) has nothing to add;
  // `limit`: no sync is asked for while the module is in a penalty box.
  args.bool("verify");
  const limit = args.bool("limit");

  const notebox = module.notebox;
  const existing = notebox.file(fileName);
  if (max !== undefined && (existing?.total ?? 0) >= max) throw noteMaxReached(fileName, max);
  // Not `{ ...content, where }`: on Node 20 a spread given a member it lacks costs microseconds.
  const content = Object.assign(
    prepareNoteContent(existing, { body, payload, full }, module.noteTime(), module.log),
    { where: module.sensors.gnss.noteWhere() },
  );
  const reply: JsonObject = {};
  let id: string;
  if (kind.queue) {
    if (noteArg) throw noteIdOnQueue();
    const file = notebox.ensureFile(fileName);
    id = String(file.meta.ctr + 1);
    storeNote(notebox, file, id, content, { volatile: live });
  } else {
    if (live) throw liveNeedsQueue();
    if (!noteArg) throw noteIdRequired();
    const file = notebox.ensureFile(fileName);
    if (noteArg === "?") reply["note"] = id = newNoteId(file, module.random);
    else {
      checkNoteId((id = noteArg));
      const previous = file.notes.get(id);
      if (previous && !previous.deleted) throw noteExists(id);
    }
    storeNote(notebox, file, id, content);
  }
  const file = notebox.file(fileName)!;
  // With max, sync:true asks for a sync once the notefile has filled up to max.
  if (sync && (max === undefined || file.total >= max) && !(limit && module.schedule.boxed()))
    notebox.requestSync(fileName);
  reply["total"] = file.total;
  reply["template"] = content.template !== undefined;
  return reply;
}

function noteGet({ name, args, module }: RequestContext): JsonObject {
  const fileName = fileArg(args, "data.qi");
  const kind = checkNotefileName(fileName, { allowReserved: true });
  if (kind.queue && kind.direction === "out") throw notReadableNotefile(fileName);
  const remove = args.bool("delete");
  const deleted = args.bool("deleted");
  if (args.bool("decrypt")) throw notYetBuilt(name, "decryption of encrypted notes (decrypt)");
  const noteArg = args.string("note") || undefined;
  if (!kind.queue && noteArg === undefined) throw noNoteId();
  const notebox = module.notebox;
  const file = notebox.file(fileName);
  // As notelib: a notefile that does not exist fails to open (see getNotefileMissing).
  if (!file) throw getNotefileMissing(fileName, noteArg !== undefined);
  let note;
  if (noteArg === undefined) {
    // A queue hands out its oldest note.
    note = file.oldest();
    if (!note) throw queueEmpty();
  } else {
    // A database note by ID, or a queue note by the ID note.changes shows.
    note = file.notes.get(noteArg);
    if (!note) throw noteNotFound(noteArg);
    if (!kind.queue && note.deleted && !deleted) throw noteDeleted(noteArg);
  }
  const reply = noteInfo(note);
  if (remove) deleteNote(notebox, file, note);
  return reply;
}

function noteUpdate({ args, module }: RequestContext): JsonObject {
  const fileName = fileArg(args);
  const kind = checkNotefileName(fileName);
  const id = args.string("note");
  if (!id) throw noNoteId();
  if (kind.queue) throw queueDisallowed(fileName);
  checkNoteId(id);
  const body = args.object("body");
  const payload = args.string("payload");
  if (body === undefined && !payload) throw noteNeedsContent();
  const sync = args.bool("sync");
  args.bool("verify");
  const notebox = module.notebox;
  const content = {
    ...prepareNoteContent(
      notebox.file(fileName),
      { body, payload, full: false },
      module.noteTime(),
      module.log,
    ),
    where: module.sensors.gnss.noteWhere(),
  };
  storeNote(notebox, notebox.ensureFile(fileName), id, content);
  if (sync) notebox.requestSync(fileName);
  return {};
}

function noteDelete({ args, module }: RequestContext): JsonObject {
  const fileName = fileArg(args);
  const kind = checkNotefileName(fileName);
  const id = args.string("note");
  if (!id) throw noNoteId();
  if (kind.queue) throw queueDisallowed(fileName);
  args.bool("verify");
  const file = module.notebox.file(fileName);
  if (!file) throw deleteNotefileMissing(fileName);
  const note = file.notes.get(id);
  if (!note) throw deleteNoteNotFound(id);
  // Deleting a tombstone succeeds, as in notelib (the note is there, already deleted); it stays
  // as it is. Once every tracker has passed it and it is purged, the note is not found.
  deleteNote(module.notebox, file, note);
  return {};
}

function noteChanges({ args, module }: RequestContext): JsonObject {
  const fileName = fileArg(args);
  checkNotefileName(fileName);
  const tracker = args.string("tracker") || undefined;
  if (tracker !== undefined) checkTrackerName(tracker);
  const maxGiven = args.int("max");
  if (maxGiven !== undefined && maxGiven < -1) throw changesMaxInvalid(maxGiven);
  const max = !maxGiven ? DEFAULT_CHANGES_BATCH : maxGiven === -1 ? Infinity : maxGiven;
  const rewind = args.bool("start") || args.bool("reset");
  const stop = args.bool("stop");
  const remove = args.bool("delete");
  const deleted = args.bool("deleted");
  const notebox = module.notebox;
  const file = notebox.file(fileName);
  if (!file) throw notefileNotFound(fileName);

  // Without a tracker: the first batch of the file, nothing remembered.
  let since = 0;
  if (tracker !== undefined) {
    if (rewind) notebox.clearTrackerPosition(tracker, fileName);
    since = notebox.trackerPosition(tracker, fileName) ?? 0;
  }
  const batch = collectChanges(file, since, max, deleted);
  if (tracker !== undefined) {
    if (stop) notebox.clearTrackerPosition(tracker, fileName);
    else notebox.setTrackerPosition(tracker, fileName, batch.position);
  }
  const total = file.total;
  const notes: JsonObject = {};
  // note.changes.rsp requires each note's `time`: 0 for a note added before the clock was known.
  for (const note of batch.notes) notes[note.id] = { ...noteInfo(note), time: note.time };
  if (remove) for (const note of batch.notes) deleteNote(notebox, file, note);
  if (tracker !== undefined) purgeTombstones(notebox, file);
  const reply: JsonObject = {};
  if (batch.notes.length > 0 && tracker !== undefined) reply["changes"] = batch.pending;
  reply["total"] = total;
  reply["notes"] = notes;
  return reply;
}

function noteTemplate({ args, module }: RequestContext): JsonObject {
  const fileName = fileArg(args);
  // Every kind, inbound queues too: a satellite link carries the hub's notes templated as well.
  checkNotefileName(fileName);
  const body = args.object("body");
  // A template attribute (schema): drop pending notes of this template when syncing over the
  // wrong transport (NTN vs. cellular/WiFi). It does not remove the template.
  const dropOnOtherTransport = args.bool("delete");
  const verify = args.bool("verify");
  const format = args.string("format");
  const length = args.int("length");
  const port = args.int("port");
  if (format && format !== "compact") throw templateFormatInvalid(format);
  if (length !== undefined && (length < -1 || length > MAX_PAYLOAD_BYTES)) {
    throw templateLengthInvalid(length, MAX_PAYLOAD_BYTES);
  }
  if (port !== undefined && port !== -1 && (port < 1 || port > 100)) throw templatePortInvalid(port);

  const notebox = module.notebox;
  const variant = module.variant;
  const existing = notebox.file(fileName);
  const defining = body !== undefined || (length !== undefined && length > 0);
  if (!defining && !verify) {
    // Neither body nor payload length: the notefile goes back to free-form JSON.
    if (existing) clearTemplate(notebox, existing);
    return {};
  }
  if (defining) {
    // Ports exist on LoRa and satellite (NTN) modules only; the schema says other modules ignore
    // the argument, so there it is neither kept nor checked against other notefiles.
    const usesPorts = needsCompactPortTemplates(variant);
    if (usesPorts) {
      if (port === undefined || port === -1) throw templatePortRequired(variant.radio);
      if (format !== "compact") throw templateCompactRequired(variant.radio);
    }
    // Built in one fixed key order: setTemplate compares definitions as JSON text.
    const definition: TemplateDefinition = {
      body: cloneJson(body ?? {}),
      ...(length !== undefined && length > 0 ? { length } : {}),
      ...(usesPorts && port !== undefined && port > 0 ? { port } : {}),
      ...(format === "compact" ? { format: "compact" as const } : {}),
      ...(dropOnOtherTransport ? { delete: true as const } : {}),
    };
    const template = Template.compile(definition);
    if (definition.port !== undefined) {
      const owner = portOwner(notebox, definition.port, fileName);
      if (owner) throw templatePortInUse(definition.port, owner);
    }
    setTemplate(notebox, notebox.ensureFile(fileName), definition);
    if (!verify) {
      // The schema's samples: {bytes} for a template, {template, format, bytes} with a format.
      return definition.format
        ? { template: true, format: definition.format, bytes: template.bytes }
        : { bytes: template.bytes };
    }
  }
  // verify: the current template, as the schema's sample {template, body, bytes} and more.
  const current = currentTemplate(notebox.file(fileName));
  if (!current) return {};
  const { definition, bytes } = current.template;
  return {
    template: true,
    body: cloneJson(definition.body),
    bytes,
    length: definition.length,
    port: definition.port,
    format: definition.format,
    delete: definition.delete,
  };
}

/** `note.*` requests (every datafile type; see docs/module.md "Notes and notefiles"). */
export const noteRequests: RequestTable = {
  "note.add": noteAdd,
  "note.get": noteGet,
  "note.update": noteUpdate,
  "note.delete": noteDelete,
  "note.changes": noteChanges,
  "note.template": noteTemplate,
};
