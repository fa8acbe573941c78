import {
  clearNeedsOutboundQueue,
  noNotefileSpecified,
  noNotefilesSpecified,
  notefileNotFound,
} from "../errors.js";
import type { Notebox } from "../storage/Notebox.js";
import { countChanges, DEFAULT_CHANGES_BATCH } from "../storage/noteChanges.js";
import type { Notefile } from "../storage/Notefile.js";
import { checkNotefileName, checkTrackerName } from "../storage/notefileNames.js";
import { isReservedNotefile } from "../../core/notefileNames.js";
import { pendingUpload } from "../sync/SyncState.js";
import type { RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

/**
 * The host's view of the notefiles, by name: the module's own `_` files stay hidden, and so do
 * the system files hosts may use (`_health.qo`, ...) unless `systemFiles` (as notelib lists them
 * only to a tracker).
 */
function visibleFiles(
  notebox: Notebox,
  filter: readonly string[] | undefined,
  systemFiles = true,
): Notefile[] {
  const hidden = (name: string) => (systemFiles ? isReservedNotefile(name) : name.startsWith("_"));
  const files = [...notebox.files()].filter((f) => !hidden(f.name));
  const wanted = filter && filter.length > 0 ? new Set(filter) : undefined;
  return files.filter((f) => !wanted || wanted.has(f.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * Pending changes from which `file.stats` recommends a sync: one full batch of changes (notelib
 * `defaultMaxGetChangesBatchSize`, the module's default `note.changes` batch). The firmware's own
 * threshold is not public; the schema's sample (78 pending, `sync:true`) is consistent with it.
 */
export const SYNC_RECOMMENDED_CHANGES = DEFAULT_CHANGES_BATCH;

/** `file.*` requests. */
export const fileRequests: RequestTable = {
  "file.changes": ({ args, module }) => {
    const filter = args.stringArray("files");
    const tracker = args.string("tracker") || undefined;
    if (tracker !== undefined) checkTrackerName(tracker);
    const notebox = module.notebox;
    const info: JsonObject = {};
    let total = 0;
    let changes = 0;
    for (const file of visibleFiles(notebox, filter, tracker !== undefined)) {
      if (tracker === undefined) {
        info[file.name] = file.total ? { total: file.total } : {};
        total += file.total;
        continue;
      }
      // Changes the tracker has not seen; the tracker itself does not move (note.changes does).
      const pending = countChanges(file, notebox.trackerPosition(tracker, file.name) ?? 0, false);
      if (pending === 0) continue;
      info[file.name] = file.total ? { total: file.total, changes: pending } : { changes: pending };
      total += file.total;
      changes += pending;
    }
    return { total, changes, info };
  },

  "file.changes.pending": ({ module }) => {
    const notebox = module.notebox;
    const info: JsonObject = {};
    let total = 0;
    let changes = 0;
    for (const file of visibleFiles(notebox, undefined)) {
      const pending = pendingUpload(notebox, file);
      if (pending === 0) continue;
      info[file.name] = file.total ? { total: file.total, changes: pending } : { changes: pending };
      total += file.total;
      changes += pending;
    }
    return changes > 0 ? { total, changes, pending: true, info } : {};
  },

  "file.stats": ({ args, module }) => {
    const name = args.string("file");
    const notebox = module.notebox;
    let files: Notefile[];
    if (name) {
      const file = notebox.file(name);
      if (!file) throw notefileNotFound(name);
      files = [file];
    } else {
      files = [...notebox.files()];
    }
    let total = 0;
    let changes = 0;
    for (const file of files) {
      total += file.total;
      changes += pendingUpload(notebox, file);
    }
    // "Sync recommended based on the number of pending notes" (schema): once a full batch of
    // changes waits, the batch a sync moves per notefile round (docs/module.md, file.stats).
    return { total, changes, sync: changes >= SYNC_RECOMMENDED_CHANGES };
  },

  "file.delete": ({ args, module }) => {
    const names = args.stringArray("files");
    if (!names || names.length === 0) throw noNotefilesSpecified();
    const notebox = module.notebox;
    // As notelib's file.delete: a notefile that does not exist is already deleted (boot-time
    // clean-up deletes files that may never have been created), and reserved names are skipped;
    // neither stops the others from being deleted.
    for (const name of names) {
      if (isReservedNotefile(name) || name.includes(",")) continue;
      if (notebox.file(name)) notebox.deleteFile(name);
    }
    return {};
  },

  "file.clear": ({ args, module }) => {
    const name = args.string("file");
    if (!name) throw noNotefileSpecified();
    const kind = checkNotefileName(name);
    if (!kind.queue || kind.direction !== "out") throw clearNeedsOutboundQueue(name);
    const file = module.notebox.file(name);
    if (!file) throw notefileNotFound(name);
    module.notebox.clearNotes(file);
    return {};
  },
};
