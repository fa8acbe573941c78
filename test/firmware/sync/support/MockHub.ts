import type { JsonObject } from "../../../../core/json.js";
import { mergeNote, nextVersion } from "../../../../protocol/merge.js";
import type { ProtocolReply, ProtocolRequest } from "../../../../protocol/messages.js";
import { HUB_ENDPOINT, type NoteRecord } from "../../../../protocol/NoteRecord.js";
import { PROTOCOL_VERSION } from "../../../../protocol/version.js";

/**
 * A scripted hub for the module's side of the sync protocol: it keeps notefiles in memory, takes
 * pushes, serves pulls and trusts any signature. Enough to see what the module sends and when
 * it moves its trackers; the real hub is tested against the real module in test/sync/.
 */
export class MockHub {
  readonly received: { file: string; note: NoteRecord }[] = [];
  readonly messages: ProtocolRequest[] = [];
  readonly files = new Map<
    string,
    { ctr: number; notes: Map<string, NoteRecord & { fromDevice?: boolean }> }
  >();
  /** The hub's tracker position per file (seen up to). */
  readonly tracker = new Map<string, number>();
  trackerSession = "";
  env: JsonObject = { device: {}, fleet: {}, project: {}, modified: 0 };
  signals: { seq: number; body: JsonObject; time: number }[] = [];
  time = Date.UTC(2026, 0, 1);

  respond = async (request: ProtocolRequest): Promise<ProtocolReply> => {
    this.messages.push(request);
    const v = PROTOCOL_VERSION;
    switch (request.type) {
      case "hello":
        return { v, time: this.time, challenge: "Y2hhbGxlbmdl", known: true };
      case "open": {
        const reset = request["tracker"] !== this.trackerSession || this.trackerSession === "";
        if (reset) {
          this.trackerSession = `ts${this.messages.length}`;
          this.tracker.clear();
        }
        const files = [...this.files.keys()].filter((f) => this.#pending(f).length > 0);
        return {
          v,
          session: "s1",
          token: "tok",
          time: this.time,
          tracker: this.trackerSession,
          reset,
          env: this.env,
          files,
          signals: this.signals.length,
        };
      }
      case "push": {
        const file = request["file"] as string;
        let merged = 0;
        for (const note of request["notes"] as NoteRecord[]) {
          this.received.push({ file, note });
          if (file.includes(".q")) {
            merged++;
            continue;
          }
          const f = this.#file(file);
          const outcome = mergeNote(f.notes.get(note.id), note);
          if (!outcome.changed) continue;
          merged++;
          f.notes.set(note.id, { ...outcome.note, change: ++f.ctr, fromDevice: outcome.note === note });
        }
        return { v, merged };
      }
      case "pull": {
        const file = request["file"] as string;
        const pending = this.#pending(file);
        const after = this.tracker.get(file) ?? 0;
        const notes = pending.slice(0, 100);
        const through = notes.length < pending.length ? notes.at(-1)!.change : this.#file(file).ctr;
        return { v, file, after, through, notes, more: notes.length < pending.length };
      }
      case "ack": {
        const file = request["file"] as string;
        if ((this.tracker.get(file) ?? 0) !== request["after"]) {
          this.tracker.set(file, 0);
          return { v, reset: true };
        }
        this.tracker.set(file, request["through"] as number);
        if (file.endsWith(".qi") || file.endsWith(".qis")) {
          const f = this.#file(file);
          for (const [id, n] of f.notes) if (n.change <= (request["through"] as number)) f.notes.delete(id);
        }
        return { v };
      }
      case "signals": {
        const after = request["after"] as number;
        return { v, signals: this.signals.filter((s) => s.seq > after), files: [] };
      }
      case "close":
        return { v };
      default:
        return { v, err: "{bad-request} unknown message" };
    }
  };

  /** Adds a note on the hub, as the API would (queues get an ID of the hub's own). */
  add(file: string, id: string | undefined, body: JsonObject): void {
    const f = this.#file(file);
    const change = ++f.ctr;
    const noteId = id ?? `1:${change}`;
    f.notes.set(
      noteId,
      nextVersion(f.notes.get(noteId), HUB_ENDPOINT, { id: noteId, body, when: this.time / 1000, change }),
    );
  }

  #file(name: string) {
    let f = this.files.get(name);
    if (!f) this.files.set(name, (f = { ctr: 0, notes: new Map() }));
    return f;
  }

  #pending(file: string): NoteRecord[] {
    const after = this.tracker.get(file) ?? 0;
    return [...this.#file(file).notes.values()]
      .filter((n) => n.change > after && !n.fromDevice)
      .sort((a, b) => a.change - b.change)
      .map(({ fromDevice: _f, ...n }) => n);
  }
}
