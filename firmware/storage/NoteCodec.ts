import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import type { Note } from "./Note.js";
import type { Notefile } from "./Notefile.js";
import type { JsonObject } from "../../core/json.js";

/** Turns notes into the bytes kept on flash and back. */
export interface NoteCodec {
  encode(file: Notefile, note: Note): Uint8Array;
  decode(file: Notefile, id: string, bytes: Uint8Array): Note;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Untemplated notes are stored as compact JSON. */
export class JsonNoteCodec implements NoteCodec {
  encode(_file: Notefile, note: Note): Uint8Array {
    const r: JsonObject = { t: note.time, c: note.change };
    if (note.body !== undefined) r["b"] = note.body;
    if (note.payload !== undefined) r["p"] = encodeBase64(note.payload);
    if (note.updates) r["u"] = note.updates;
    if (note.deleted) r["d"] = 1;
    if (note.sync !== undefined) r["s"] = note.sync;
    if (note.where !== undefined) r["w"] = [note.where.lat, note.where.lon, note.where.time];
    return encoder.encode(JSON.stringify(r));
  }

  decode(_file: Notefile, id: string, bytes: Uint8Array): Note {
    const r = JSON.parse(decoder.decode(bytes)) as JsonObject;
    const note: Note = {
      id,
      time: r["t"] as number,
      change: r["c"] as number,
      updates: (r["u"] as number) ?? 0,
    };
    if (r["b"] !== undefined) note.body = r["b"] as JsonObject;
    if (r["p"] !== undefined) note.payload = decodeBase64(r["p"] as string) ?? new Uint8Array();
    if (r["d"]) note.deleted = true;
    if (r["s"] !== undefined) note.sync = r["s"] as JsonObject;
    const w = r["w"];
    if (Array.isArray(w) && w.length === 3 && w.every((v) => typeof v === "number"))
      note.where = { lat: w[0] as number, lon: w[1] as number, time: w[2] as number };
    return note;
  }
}
