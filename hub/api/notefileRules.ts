import type { NotefileKind } from "../../core/NotefileKind.js";
import { isValidNoteId, kindOfGoodName, notefileNameFault } from "../../core/notefileNames.js";
import { trackerNameFault } from "../../protocol/trackers.js";
import * as errors from "../errors.js";

/**
 * The shared naming rules (core/notefileNames.ts) as they apply to the hub's replica: the hub
 * keeps `.qi`/`.qis` queues (toward the module) and `.db`/`.dbs` databases; `.qo`/`.qos` notes
 * become events and `.dbx` never leaves the module. API clients may read system notefiles but
 * write only those a host could use too (of which only `_req.qis` flows toward the module).
 */
export function hubNotefile(name: string, use: "read" | "write"): NotefileKind {
  switch (notefileNameFault(name, { allowReserved: use === "read" })) {
    case "invalid":
      throw errors.notefileNameInvalid(name);
    case "reserved":
      throw errors.notefileReserved(name);
    case "unknown-kind":
      throw errors.notefileTypeNotRecognized(name);
  }
  const kind = kindOfGoodName(name);
  if (kind.direction === "local") throw errors.notefileLocalOnly(name);
  if (kind.direction === "out") throw errors.notefileOutbound(name);
  return kind;
}

export function checkNoteId(id: string): void {
  if (!isValidNoteId(id)) throw errors.noteIdInvalid(id);
}

export function checkTracker(tracker: string): void {
  if (trackerNameFault(tracker)) throw errors.trackerInvalid(tracker);
}
