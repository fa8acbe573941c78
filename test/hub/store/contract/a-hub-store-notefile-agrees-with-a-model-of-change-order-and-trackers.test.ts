import fc from "fast-check";
import { expect, it } from "vitest";
import { StoreError } from "../../../../hub/store/StoreError.js";
import { describeEachBackend } from "./support/backends.js";
import { putDevice, seedProject } from "./support/seed.js";

const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("add" as const), id: fc.constantFrom("a", "b", "c", "d"), v: fc.nat(100) }),
    fc.record({
      kind: fc.constant("update" as const),
      id: fc.constantFrom("a", "b", "c", "d"),
      v: fc.nat(100),
    }),
    fc.record({ kind: fc.constant("delete" as const), id: fc.constantFrom("a", "b", "c", "d") }),
    fc.record({ kind: fc.constant("read" as const), max: fc.integer({ min: 1, max: 3 }) }),
  ),
  { maxLength: 40 },
);

describeEachBackend("the hub's notefile store", (backend) => {
  it("agrees with a model: live notes, {note-exists}/{note-noexist}, and a tracker that sees every change once", async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        const store = await backend.open();
        try {
          await seedProject(store);
          await putDevice(store, 1);
          await store.notefiles.createNotefile("dev:1", "f.db", 0);
          const model = new Map<string, number>();
          let unread = new Set<string>();
          let now = 1000;
          for (const op of sequence) {
            now += 1000;
            if (op.kind === "read") {
              const batch = await store.notefiles.changes(
                "dev:1",
                "f.db",
                {
                  tracker: "t",
                  max: op.max,
                  start: false,
                  stop: false,
                  includeDeleted: true,
                  deleteReturned: false,
                  tombstoneOnDelete: true,
                },
                now,
              );
              for (const n of batch.notes) unread.delete(n.noteId);
              expect(batch.notes.length).toBeLessThanOrEqual(op.max);
              continue;
            }
            const live = model.has(op.id);
            try {
              if (op.kind === "add")
                await store.notefiles.addNote(
                  "dev:1",
                  "f.db",
                  { noteId: op.id, body: { v: op.v }, payload: null },
                  now,
                );
              else if (op.kind === "update")
                await store.notefiles.updateNote(
                  "dev:1",
                  "f.db",
                  op.id,
                  { body: { v: op.v }, payload: null },
                  now,
                  false,
                );
              else await store.notefiles.deleteNote("dev:1", "f.db", op.id, now, true);
              expect(op.kind === "add" ? !live : live).toBe(true);
              if (op.kind === "delete") model.delete(op.id);
              else model.set(op.id, op.v);
              unread.add(op.id);
            } catch (e) {
              expect(e).toBeInstanceOf(StoreError);
              expect((e as StoreError).code).toBe(op.kind === "add" ? "note-exists" : "note-noexist");
              expect(op.kind === "add" ? live : !live).toBe(true);
            }
          }
          const notes = await store.notefiles.listNotes("dev:1", "f.db", { includeDeleted: false });
          expect(new Map(notes.map((n) => [n.noteId, (n.body as { v: number }).v]))).toEqual(model);
          const changes = notes.map((n) => n.change);
          expect([...changes].sort((a, b) => a - b)).toEqual(changes);
          // Everything changed since the tracker's last read comes next, each note once.
          const rest = await store.notefiles.changes(
            "dev:1",
            "f.db",
            {
              tracker: "t",
              max: 0,
              start: false,
              stop: false,
              includeDeleted: true,
              deleteReturned: false,
              tombstoneOnDelete: true,
            },
            now,
          );
          expect(new Set(rest.notes.map((n) => n.noteId))).toEqual(unread);
          expect(rest.changes).toBe(0);
          unread = new Set();
        } finally {
          await backend.dispose(store);
        }
      }),
      // A run on PostgreSQL opens a store on a server: fewer of them.
      { numRuns: backend.name === "sqlite" ? 150 : 15, seed: 11 },
    );
  });
});
