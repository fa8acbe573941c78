import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notefileKind } from "../../../core/NotefileKind.js";
import type { Note } from "../../../firmware/storage/Note.js";
import { Notefile } from "../../../firmware/storage/Notefile.js";

// A notefile keeps its notes in change order; a queue's sent notes leave from the front a batch at
// a time and are cut off the array only now and then. Whatever the mix of adds, removals anywhere,
// front batches and their undo, every view of the order is the one a plain array would hold.
const step = fc.oneof(
  fc.record({ op: fc.constant("add" as const), deleted: fc.boolean() }),
  fc.record({ op: fc.constant("addOlder" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("prefix" as const), count: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ op: fc.constant("prefixUndone" as const), count: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ op: fc.constant("read" as const) }),
);

function note(change: number, deleted = false): Note {
  return { id: String(change), change, time: 0, updates: 0, ...(deleted ? { deleted } : {}) };
}

function expectSame(file: Notefile, model: readonly Note[]): void {
  expect(file.orderedCount).toBe(model.length);
  const from = Math.floor(model.length / 3);
  expect(file.orderedSlice(from, from + 5)).toEqual(model.slice(from, from + 5));
  expect(file.orderedAt(model.length - 1)).toBe(model[model.length - 1]);
  expect(file.orderedAt(model.length)).toBeUndefined();
  expect(file.oldest()).toBe(model.find((n) => !n.deleted));
  for (const probe of [0, model[0]?.change ?? 0, model[from]?.change ?? 0, 1e9]) {
    expect(file.indexAfter(probe)).toBe(model.filter((n) => n.change <= probe).length);
  }
}

describe("a notefile's change order", () => {
  it("is the order a plain array holds through adds, removals, front batches and their undo", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.integer({ min: 0, max: 300 }), (steps, start) => {
        const file = new Notefile("q.qo", notefileKind("q.qo")!, { ctr: 0 });
        const model: Note[] = [];
        let change = 0;
        for (let i = 0; i < start; i++) {
          const n = note(++change);
          file.insertOrdered(n);
          model.push(n);
        }
        for (const s of steps) {
          if (s.op === "add") {
            const n = note(++change, s.deleted);
            file.insertOrdered(n);
            model.push(n);
          } else if (s.op === "addOlder") {
            // A note put back at its place (a rolled-back removal): between two others.
            change += 2;
            const n = note(change - 1);
            const later = note(change);
            file.insertOrdered(later);
            file.insertOrdered(n);
            model.push(n, later);
          } else if (s.op === "remove" && model.length > 0) {
            const [n] = model.splice(s.at % model.length, 1);
            file.removeOrdered(n!);
          } else if (s.op === "prefix") {
            file.removeOrderedPrefix(s.count);
            model.splice(0, s.count);
          } else if (s.op === "prefixUndone") {
            const removed = file.orderedSlice(0, s.count);
            file.removeOrderedPrefix(s.count);
            file.restoreOrderedPrefix(removed);
          } else if (s.op === "read") {
            expect(file.ordered).toEqual(model);
          }
          expectSame(file, model);
        }
        expect(file.ordered).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });

  it("sends a long queue from its front in batches, each batch seeing the notes after the last", () => {
    const file = new Notefile("q.qo", notefileKind("q.qo")!, { ctr: 0 });
    for (let change = 1; change <= 10_000; change++) file.insertOrdered(note(change));
    let sent = 0;
    while (file.orderedCount > 0) {
      const batch = file.orderedSlice(0, 100);
      expect(batch[0]!.change).toBe(sent + 1);
      expect(file.indexAfter(sent)).toBe(0);
      file.removeOrderedPrefix(batch.length);
      sent += batch.length;
    }
    expect(sent).toBe(10_000);
    expect(file.ordered).toEqual([]);
    expect(file.oldest()).toBeUndefined();
  });
});
