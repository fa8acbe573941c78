import { decodeBase64 } from "../../core/base64.js";
import type { NotefileKind } from "../../core/NotefileKind.js";
import { roleAtLeast } from "../auth/Principal.js";
import * as errors from "../errors.js";
import type { HttpError } from "../HttpError.js";
import { SYNC_TRACKER } from "../../protocol/trackers.js";
import type { DeviceRecord, NoteRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";
import type { HubRouter, ProjectContext, RoleRule } from "./HubRouter.js";
import type { QueryReader } from "./QueryReader.js";
import { checkNoteId, checkTracker, hubNotefile } from "./notefileRules.js";
import { DELETE_NOTEFILES, NOTE_INPUT } from "./requestBodies.js";
import { resolveDevice } from "./resolve.js";
import { listedNoteView, noteView } from "./views.js";
import type { JsonObject } from "../../core/json.js";

/** Store refusals as HTTP errors (the tags stay in the text, as on the module). */
function storeError(e: unknown): never {
  if (e instanceof StoreError) {
    const map: Partial<Record<StoreError["code"], (text: string) => HttpError>> = {
      "note-exists": errors.noteExists,
      "note-noexist": errors.noteMissing,
      "notefile-exists": errors.notefileExists,
      "notefile-noexist": errors.notefileMissing,
    };
    const make = map[e.code];
    if (make) throw make(e.message);
  }
  throw e;
}

/** `{body, payload}` of a note request; at least one is required. */
function noteContent(ctx: ProjectContext): { body: JsonObject | null; payload: string | null } {
  const given = ctx.body(NOTE_INPUT);
  const content = given.body ?? null;
  const payload = given.payload ?? null;
  if (payload !== null && decodeBase64(payload) === undefined) throw errors.payloadNotBase64();
  if (content === null && (payload === null || payload === "")) throw errors.noteNeedsContent();
  return { body: content, payload: payload === "" ? null : payload };
}

/**
 * Whether a read asks to take (delete) what it returns: `delete` given as anything but false. A
 * malformed value counts as asking (the handler then refuses it), so it can never slip past the
 * role check.
 */
function asksToTake(query: QueryReader): boolean {
  try {
    return query.bool("delete", false);
  } catch {
    return true;
  }
}

/** Reads that may take what they read: viewers read, taking needs a developer. */
const readOrTake: RoleRule = (query) => (asksToTake(query) ? "developer" : "viewer");

/**
 * Whether this request takes the notes it reads. HEAD never does (it changes nothing), and every
 * path that does checks the developer role again right here, whatever its route declared.
 */
function takes(ctx: ProjectContext): boolean {
  if (ctx.readOnly || !ctx.query.bool("delete", false)) return false;
  if (!roleAtLeast(ctx.role, "developer")) throw errors.roleTooLow("developer", ctx.role);
  return true;
}

function notesMap(notes: NoteRecord[]): JsonObject {
  const out: JsonObject = {};
  for (const n of notes) out[n.noteId] = noteView(n);
  return out;
}

/** Notes and notefiles of a device's hub-side replica (interface B's datafile rules). */
export function registerNoteRoutes(router: HubRouter): void {
  const { store, notes } = router.services;
  const D = "/v1/projects/:projectUID/devices/:deviceUID";

  const target = async (
    ctx: ProjectContext,
    use: "read" | "write",
  ): Promise<[DeviceRecord, string, NotefileKind]> => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const file = ctx.params.notefileID!;
    return [device, file, hubNotefile(file, use)];
  };

  // Add QI Note: append to an inbound queue.
  router.project("POST", `${D}/notes/:notefileID`, "developer", async (ctx) => {
    const [device, file, kind] = await target(ctx, "write");
    if (!kind.queue) throw errors.noteIdRequired(file);
    await notes.add(device, file, null, noteContent(ctx)).catch(storeError);
    return {};
  });

  // Add DB Note (`-` creates the empty notefile).
  router.project("POST", `${D}/notes/:notefileID/:noteID`, "developer", async (ctx) => {
    const [device, file, kind] = await target(ctx, "write");
    if (kind.queue) throw errors.noteIdNotAllowed(file);
    const noteId = ctx.params.noteID!;
    if (noteId === "-") {
      await notes.createNotefile(device, file, { ifMissing: true }).catch(storeError);
      return {};
    }
    checkNoteId(noteId);
    await notes.add(device, file, noteId, noteContent(ctx)).catch(storeError);
    return {};
  });

  // Update DB Note: replaces body and payload; a database note is created if missing.
  router.project("PUT", `${D}/notes/:notefileID/:noteID`, "developer", async (ctx) => {
    const [device, file] = await target(ctx, "write");
    const noteId = ctx.params.noteID!;
    checkNoteId(noteId);
    await notes.update(device, file, noteId, noteContent(ctx)).catch(storeError);
    return {};
  });

  // Delete Note: a database note leaves a tombstone, a queued inbound note is withdrawn.
  router.project("DELETE", `${D}/notes/:notefileID/:noteID`, "developer", async (ctx) => {
    const [device, file] = await target(ctx, "write");
    const noteId = ctx.params.noteID!;
    checkNoteId(noteId);
    await notes.delete(device, file, noteId).catch(storeError);
    return {};
  });

  /** Get DB Note: the note; `delete=true` takes it (a Delete Note, event included). */
  const getNote = async (ctx: ProjectContext, device: DeviceRecord, file: string, noteId: string) => {
    checkNoteId(noteId);
    const includeDeleted = ctx.query.bool("deleted", false);
    const take = takes(ctx);
    return noteView(await notes.get(device, file, noteId, { includeDeleted, take }).catch(storeError));
  };

  // Get DB Note.
  router.project("GET", `${D}/notes/:notefileID/:noteID`, readOrTake, async (ctx) => {
    const [device, file] = await target(ctx, "read");
    return getNote(ctx, device, file, ctx.params.noteID!);
  });

  /** The notefile's notes (with a tracker: its changes); `delete=true` takes the notes returned. */
  const changes = async (ctx: ProjectContext, device: DeviceRecord, file: string) => {
    const tracker = ctx.query.string("tracker") ?? null;
    if (tracker !== null) checkTracker(tracker);
    const take = takes(ctx);
    const result = await notes
      .read(device, file, {
        tracker,
        max: ctx.query.int("max", { min: 0, max: 1_000_000 }) ?? 0,
        start: ctx.query.bool("start", false),
        stop: ctx.query.bool("stop", false),
        includeDeleted: ctx.query.bool("deleted", false),
        take,
        peek: ctx.readOnly,
      })
      .catch(storeError);
    const out: JsonObject = {};
    if (result.changes !== undefined) out.changes = result.changes;
    out.total = result.total;
    out.notes = notesMap(result.notes);
    return out;
  };

  // Get Notefile (current definition): the queued notes of a .qi, every note of a .db.
  router.project("GET", `${D}/notes/:notefileID`, readOrTake, async (ctx) => {
    const [device, file] = await target(ctx, "read");
    return changes(ctx, device, file);
  });

  // `…/notes/{file}/changes` is two calls: the older client's incremental changes, and (current
  // definition) Get DB Note of the note named "changes". It is the note read when the notefile is
  // a database holding a note of that name (a tombstone included) and no tracker argument is given;
  // otherwise the changes call. Both take with `delete=true`, so both need a developer for that:
  // the route declares it, and `takes` checks it again wherever a note is taken.
  router.project("GET", `${D}/notes/:notefileID/changes`, readOrTake, async (ctx) => {
    const [device, file, kind] = await target(ctx, "read");
    const trackerArgs = ["tracker", "max", "start", "stop"].some((a) => ctx.query.has(a));
    if (!trackerArgs && !kind.queue && (await store.notefiles.getNote(device.uid, file, "changes"))) {
      return getNote(ctx, device, file, "changes");
    }
    return changes(ctx, device, file);
  });

  // Create Notefile.
  router.project("POST", `${D}/notefiles/:notefileID`, "developer", async (ctx) => {
    const [device, file] = await target(ctx, "write");
    await notes.createNotefile(device, file).catch(storeError);
    return {};
  });

  const fileFilter = (ctx: ProjectContext): Set<string> | null => {
    const names = ctx.query.list("files", { comma: true });
    for (const name of names) hubNotefile(name, "read");
    return names.length > 0 ? new Set(names) : null;
  };

  // List Notefiles (current definition): each .qi/.db notefile with its notes.
  router.project("GET", `${D}/files`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const only = fileFilter(ctx);
    const pendingOnly = ctx.query.bool("pending", false);
    const summaries = new Map(
      (await store.notefiles.summaries(device.uid, SYNC_TRACKER)).map((s) => [s.fileId, s]),
    );
    const out: JsonObject[] = [];
    for (const nf of await store.notefiles.listNotefiles(device.uid)) {
      if (only && !only.has(nf.fileId)) continue;
      const summary = summaries.get(nf.fileId);
      if (pendingOnly && (summary?.changes ?? 0) === 0) continue;
      const notes = await store.notefiles.listNotes(device.uid, nf.fileId, { includeDeleted: false });
      // Pending: changed after the device's tracker, and not a version the device sent itself.
      const seen = summary?.position ?? 0;
      const listed = notes
        .map((n) => ({ n, pending: n.change > seen && !n.arrived }))
        .filter(({ pending }) => pending || !pendingOnly);
      out.push({ id: nf.fileId, notes: listed.map(({ n, pending }) => listedNoteView(n, pending)) });
    }
    return out;
  });

  const fileChanges = async (device: DeviceRecord, tracker: string | null, only: Set<string> | null) => {
    const info: JsonObject = {};
    let total = 0;
    let changed = 0;
    for (const s of await store.notefiles.summaries(device.uid, tracker)) {
      if (only && !only.has(s.fileId)) continue;
      total += s.total;
      changed += s.changes;
      info[s.fileId] = tracker === null ? { total: s.total } : { total: s.total, changes: s.changes };
    }
    return { info, total, changed };
  };

  // Older client: file.changes on the hub replica.
  router.project("GET", `${D}/files/changes`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const tracker = ctx.query.string("tracker") ?? null;
    if (tracker !== null) checkTracker(tracker);
    const { info, total, changed } = await fileChanges(device, tracker, fileFilter(ctx));
    return tracker === null ? { total, info } : { total, changes: changed, info };
  });

  // Older client: what is waiting to go down to the module.
  router.project("GET", `${D}/files/changes/pending`, "viewer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const { info, total, changed } = await fileChanges(device, SYNC_TRACKER, null);
    return { total, changes: changed, pending: changed > 0, info };
  });

  // Delete Notefiles (all or nothing).
  router.project("DELETE", `${D}/files`, "developer", async (ctx) => {
    const device = await resolveDevice(ctx, ctx.params.deviceUID!);
    const files = ctx.body(DELETE_NOTEFILES).files;
    for (const file of files) hubNotefile(file, "write");
    await notes.deleteNotefiles(device, files).catch(storeError);
    return {};
  });
}
