import { ByteReader } from "./ByteReader.js";
import { ByteWriter } from "./ByteWriter.js";
import type { Note } from "./Note.js";
import { JsonNoteCodec, type NoteCodec } from "./NoteCodec.js";
import type { Notefile } from "./Notefile.js";
import { templateNumbered } from "./notefileTemplates.js";
import { hasEmptyMember } from "./Template.js";
import type { JsonObject } from "../../core/json.js";

/** First byte of a templated record; JSON records start with `{`. */
const TEMPLATED = 0xb1;

const FLAG_DELETED = 1;
const FLAG_PAYLOAD = 2;
const FLAG_SYNC = 4;
const FLAG_BODY = 8;
const FLAG_FULL = 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Stores templated notes in the compact binary form their template defines, so that flash use
 * follows the template as on the module; other notes go through `JsonNoteCodec`.
 *
 * Templated record: `0xB1`, then varints template number, change, updates, time; a flags byte
 * (deleted, payload, sync state, body, full); the payload (varint length + bytes); the sync state
 * (varint length + JSON); the body laid out by the template (see `Template.write`). The record
 * names its template, so notes written before a re-template still decode.
 */
export class TemplateNoteCodec implements NoteCodec {
  readonly #json = new JsonNoteCodec();
  /** Reused for every record: `finish()` hands out a copy. */
  readonly #writer = new ByteWriter(256);

  encode(file: Notefile, note: Note): Uint8Array {
    const template = note.template === undefined ? undefined : templateNumbered(file, note.template);
    if (!template) return this.#json.encode(file, note);
    const w = this.#writer;
    w.reset();
    w.u8(TEMPLATED);
    w.varint(note.template!);
    w.varint(note.change);
    w.varint(note.updates);
    w.varint(note.time);
    let flags = 0;
    if (note.deleted) flags |= FLAG_DELETED;
    if (note.payload !== undefined) flags |= FLAG_PAYLOAD;
    if (note.sync !== undefined) flags |= FLAG_SYNC;
    if (note.body !== undefined) flags |= FLAG_BODY;
    // A body that kept an empty member was added with `full:true`; others read back omit-empty.
    if (note.body !== undefined && hasEmptyMember(note.body)) flags |= FLAG_FULL;
    w.u8(flags);
    if (note.payload !== undefined) {
      w.varint(note.payload.length);
      w.bytes(note.payload);
    }
    if (note.sync !== undefined) {
      const sync = encoder.encode(JSON.stringify(note.sync));
      w.varint(sync.length);
      w.bytes(sync);
    }
    if (note.body !== undefined) template.write(w, note.body);
    return w.finish();
  }

  decode(file: Notefile, id: string, bytes: Uint8Array): Note {
    if (bytes[0] !== TEMPLATED) return this.#json.decode(file, id, bytes);
    const r = new ByteReader(bytes, 1);
    const number = r.varint();
    const template = templateNumbered(file, number);
    if (!template) throw new Error(`note ${id} of ${file.name} refers to missing template ${number}`);
    const note: Note = { id, template: number, change: r.varint(), updates: r.varint(), time: r.varint() };
    const flags = r.u8();
    if (flags & FLAG_DELETED) note.deleted = true;
    if (flags & FLAG_PAYLOAD) note.payload = r.bytes(r.varint());
    if (flags & FLAG_SYNC) note.sync = JSON.parse(decoder.decode(r.bytes(r.varint()))) as JsonObject;
    if (flags & FLAG_BODY) note.body = template.read(r, (flags & FLAG_FULL) !== 0);
    if (r.remaining !== 0) throw new Error(`note ${id} of ${file.name}: ${r.remaining} stray bytes`);
    return note;
  }
}
