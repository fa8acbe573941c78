import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { notefileKind, type NotefileKind } from "../../core/NotefileKind.js";
import type { EventService } from "../events/EventService.js";
import { ServiceError } from "../ServiceError.js";
import type { ChangesResult, HubStore } from "../store/HubStore.js";
import type { DeviceRecord, NoteRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";
import type { SyncNotifier } from "../sync/SyncNotifier.js";

/** A note's content: a JSON body, a base64 payload, or both. */
export interface NoteContent {
  body: JsonObject | null;
  payload: string | null;
}

/** How a notefile read goes (the module's note.changes arguments, plus taking what is read). */
export interface NoteReadOptions {
  /** With a tracker, only the changes since it, and the tracker moves past them. */
  tracker: string | null;
  max: number;
  start: boolean;
  stop: boolean;
  includeDeleted: boolean;
  /** Deletes the notes returned, each recorded as a Delete Note would be. */
  take: boolean;
  /** Answers, but changes nothing (HEAD). */
  peek: boolean;
}

type NoteChange = "note.add" | "note.update" | "note.delete";

/**
 * The hub-side changes of a device's notefiles (the API's note calls): each is one store
 * transaction on the hub clock, and adds, updates and database deletions are recorded as events
 * of the device (`req` note.add, note.update, note.delete), as on the hosted service. Queues
 * (`.qi`, `.qis`) take notes without IDs, databases (`.db`, `.dbs`) need them. Notefile names
 * are the caller's to check (the API refuses bad ones with its own words); a name the hub keeps
 * no notes of is refused here as `invalid`. Store refusals pass through as `StoreError`s
 * (`note-exists`, `note-noexist`, `notefile-exists`, `notefile-noexist`).
 */
export class NoteService {
  constructor(
    private readonly store: HubStore,
    private readonly events: EventService,
    private readonly clock: Clock,
    private readonly notifier?: SyncNotifier,
  ) {}

  /** Tells a session waiting for the device (continuous mode) once the change is committed. */
  #changed(device: DeviceRecord): void {
    this.store.afterCommit(() => this.notifier?.notify(device.uid, "notes"));
  }

  /** Adds a note (`noteId` null for a queue), creating the notefile if needed. */
  async add(
    device: DeviceRecord,
    file: string,
    noteId: string | null,
    content: NoteContent,
  ): Promise<NoteRecord> {
    const kind = this.#kind(file);
    if (kind.queue !== (noteId === null)) {
      const why = kind.queue ? "a queue's notes have no ID" : "a database note needs an ID";
      throw new ServiceError("invalid", file, `${file}: ${why}`);
    }
    return this.store.transaction(async () => {
      const note = await this.store.notefiles.addNote(
        device.uid,
        file,
        { noteId, ...content },
        this.clock.now(),
      );
      await this.#record(device, file, kind, "note.add", note);
      this.#changed(device);
      return note;
    });
  }

  /** Replaces a note's body and payload; a missing database note is created (a queued one is not). */
  async update(
    device: DeviceRecord,
    file: string,
    noteId: string,
    content: NoteContent,
  ): Promise<NoteRecord> {
    const kind = this.#kind(file);
    return this.store.transaction(async () => {
      const note = await this.store.notefiles.updateNote(
        device.uid,
        file,
        noteId,
        content,
        this.clock.now(),
        !kind.queue,
      );
      await this.#record(device, file, kind, "note.update", note);
      this.#changed(device);
      return note;
    });
  }

  /**
   * Deletes a note: a database note leaves a tombstone (the module must learn of it) and is
   * recorded as `note.delete`; a queued note is simply withdrawn.
   */
  async delete(device: DeviceRecord, file: string, noteId: string): Promise<void> {
    const kind = this.#kind(file);
    await this.store.transaction(async () => {
      const before = await this.store.notefiles.getNote(device.uid, file, noteId);
      await this.store.notefiles.deleteNote(device.uid, file, noteId, this.clock.now(), !kind.queue);
      await this.#recordDeletion(device, file, kind, noteId, before?.updates ?? 0);
      this.#changed(device);
    });
  }

  /**
   * One note, tombstones only with `includeDeleted`; `take` deletes it (as `delete` does) after
   * reading it. Throws `notefile-noexist` or `note-noexist`.
   */
  async get(
    device: DeviceRecord,
    file: string,
    noteId: string,
    options: { includeDeleted: boolean; take: boolean },
  ): Promise<NoteRecord> {
    const kind = this.#kind(file);
    return this.store.transaction(async () => {
      const note = await this.store.notefiles.getNote(device.uid, file, noteId);
      if (!note) {
        if (!(await this.store.notefiles.getNotefile(device.uid, file))) {
          throw new StoreError("notefile-noexist", `{notefile-noexist} notefile does not exist: ${file}`);
        }
        throw new StoreError("note-noexist", `{note-noexist} note not found: ${noteId}`);
      }
      if (note.deleted && !options.includeDeleted) {
        throw new StoreError("note-noexist", `note has been deleted: ${noteId} {note-noexist}`);
      }
      if (options.take && !note.deleted) {
        await this.store.notefiles.deleteNote(device.uid, file, noteId, this.clock.now(), !kind.queue);
        await this.#recordDeletion(device, file, kind, noteId, note.updates);
        this.#changed(device);
      }
      return note;
    });
  }

  /** The notefile's notes, or with a tracker its changes; `take` deletes the notes returned. */
  async read(device: DeviceRecord, file: string, options: NoteReadOptions): Promise<ChangesResult> {
    const kind = this.#kind(file);
    const take = options.take && !options.peek;
    return this.store.transaction(async () => {
      const result = await this.store.notefiles.changes(
        device.uid,
        file,
        {
          tracker: options.tracker,
          max: options.max,
          start: options.start,
          stop: options.stop,
          includeDeleted: options.includeDeleted,
          deleteReturned: take,
          tombstoneOnDelete: !kind.queue,
          peek: options.peek,
        },
        this.clock.now(),
      );
      if (take) {
        for (const n of result.notes) {
          if (!n.deleted) await this.#recordDeletion(device, file, kind, n.noteId, n.updates);
        }
        if (result.notes.length > 0) this.#changed(device);
      }
      return result;
    });
  }

  /** Creates an empty notefile; `ifMissing` keeps an existing one instead of refusing (`notefile-exists`). */
  async createNotefile(
    device: DeviceRecord,
    file: string,
    options: { ifMissing?: boolean } = {},
  ): Promise<void> {
    this.#kind(file);
    await this.store.transaction(async () => {
      if (options.ifMissing && (await this.store.notefiles.getNotefile(device.uid, file))) return;
      await this.store.notefiles.createNotefile(device.uid, file, this.clock.now());
    });
  }

  /** Deletes notefiles with their notes, all or nothing (`notefile-noexist` when one is missing). */
  async deleteNotefiles(device: DeviceRecord, files: string[]): Promise<void> {
    for (const file of files) this.#kind(file);
    await this.store.notefiles.deleteNotefiles(device.uid, files, this.clock.now());
  }

  /** The kind of a notefile the hub keeps notes of: an inbound queue or a database. */
  #kind(file: string): NotefileKind {
    const kind = notefileKind(file);
    if (!kind || kind.direction === "out" || kind.direction === "local") {
      throw new ServiceError("invalid", file, `${file} is not a notefile the hub keeps notes of`);
    }
    return kind;
  }

  /** A database note's deletion as an event (queues record none, as on the hosted service). */
  async #recordDeletion(
    device: DeviceRecord,
    file: string,
    kind: NotefileKind,
    noteId: string,
    updatesBefore: number,
  ): Promise<void> {
    if (kind.queue) return;
    await this.#record(device, file, kind, "note.delete", {
      noteId,
      body: null,
      payload: null,
      updates: updatesBefore + 1,
    });
  }

  /** A hub-side change as an event of the device's project. */
  async #record(
    device: DeviceRecord,
    file: string,
    kind: NotefileKind,
    req: NoteChange,
    note: Pick<NoteRecord, "noteId" | "body" | "payload" | "updates">,
  ): Promise<void> {
    const data: JsonObject = {
      req,
      app: device.projectUid,
      product: device.productUid,
      best_id: device.serialNumber ?? device.uid,
      updates: note.updates,
    };
    if (device.serialNumber) data.sn = device.serialNumber;
    if (!kind.queue) data.note = note.noteId;
    if (note.body !== null) data.body = note.body;
    if (note.payload !== null) data.payload = note.payload;
    await this.events.record({ projectUid: device.projectUid, deviceUid: device.uid, file, data });
  }
}
