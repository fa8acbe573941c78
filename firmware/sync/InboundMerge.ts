import { notefileKind } from "../../core/NotefileKind.js";
import { mergeNote } from "../../protocol/merge.js";
import type { AckReply, PullReply } from "../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import type { Note } from "../storage/Note.js";
import type { Notefile } from "../storage/Notefile.js";
import { currentTemplate } from "../storage/notefileTemplates.js";
import { fromRecord, toRecord } from "../storage/noteVersions.js";
import { exchange } from "./HubExchange.js";
import type { Traffic } from "./SyncState.js";
import type { SyncHost } from "./syncTypes.js";

/*
 * The hub's changes for the module: each inbound notefile pulled batch by batch, each batch
 * merged in one turn by the merge rule both ends share, then acknowledged.
 */

/** Pulls, merges and acknowledges the hub's changes of `files` (secure notefiles only over TLS). */
export async function takeChanges(
  module: SyncHost,
  token: string,
  secure: boolean,
  files: readonly string[],
  traffic: Traffic,
): Promise<void> {
  for (const file of files) {
    const kind = notefileKind(file);
    if (!kind || kind.direction === "out" || kind.direction === "local") continue;
    if (kind.secure && !secure) continue;
    for (;;) {
      const batch = await exchange<PullReply>(
        module,
        { v: PROTOCOL_VERSION, type: "pull", token, file },
        traffic,
      );
      traffic.notes_received += await module.exclusive(() => merge(module, batch));
      await exchange<AckReply>(
        module,
        { v: PROTOCOL_VERSION, type: "ack", token, file, after: batch.after, through: batch.through },
        traffic,
      );
      if (!batch.more) break;
    }
  }
}

/** Merges a batch of the hub's changes; returns how many notes it received. */
export function merge(module: SyncHost, batch: PullReply): number {
  const box = module.notebox;
  const kind = notefileKind(batch.file);
  if (!kind) return 0;
  const existing = box.file(batch.file);
  const pulled = (existing?.meta["pulled"] as number | undefined) ?? 0;
  const fresh = batch.notes.filter((n) => n.change > pulled);
  if (fresh.length === 0 && batch.through <= pulled) return 0;
  const file: Notefile = existing ?? box.ensureFile(batch.file);
  for (const record of fresh) {
    if (kind.queue) {
      if (record.deleted) continue;
      box.appendToQueue(batch.file, inboundContent(file, fromRecord(record, true)));
      continue;
    }
    const stored = file.notes.get(record.id);
    const outcome = mergeNote(stored ? toRecord(stored) : undefined, record);
    if (!outcome.changed) continue;
    const unchanged = outcome.note === record;
    box.putNote(file, { id: record.id, ...fromRecord(outcome.note, unchanged) });
  }
  const { ctr: _ctr, ...meta } = file.meta;
  box.setFileMeta(file, { ...meta, pulled: Math.max(pulled, batch.through) });
  module.attn.noticeFileChanges(box);
  return fresh.length;
}

/**
 * A note the hub sent to an inbound queue, as the queue keeps it: fitted to the queue's template
 * when the host set one (`note.template` on a `.qi`, as satellite links need): fields the template
 * lacks are dropped and values take its sizes, as the hub's compact encoding carries them.
 */
function inboundContent(
  file: Notefile,
  note: ReturnType<typeof fromRecord>,
): Pick<Note, "body" | "payload" | "time" | "template"> {
  const content = {
    ...(note.body !== undefined ? { body: note.body } : {}),
    ...(note.payload !== undefined ? { payload: note.payload } : {}),
    time: note.time,
  };
  const current = currentTemplate(file);
  if (!current) return content;
  let fitted;
  try {
    fitted = current.template.fit(note.body, false, note.time);
  } catch {
    // A body the template cannot hold (a string where it has a number) is kept as sent.
    return content;
  }
  return {
    ...content,
    ...(fitted.body !== undefined ? { body: fitted.body } : {}),
    time: fitted.time,
    template: current.number,
  };
}
