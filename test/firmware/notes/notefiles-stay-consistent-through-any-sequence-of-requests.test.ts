import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Notefile } from "../../../firmware/storage/Notefile.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

const files = ["a.qo", "b.db", "c.dbx", "d.qi"];
const ids = ["x", "y", "z"];

const request = fc.oneof(
  fc.record({
    req: fc.constant("note.add"),
    file: fc.constantFrom("a.qo", "b.db", "c.dbx"),
    note: fc.constantFrom(...ids),
    body: fc.record({
      v: fc.integer({ min: -200, max: 200 }),
      s: fc.string({ minLength: 10, maxLength: 120 }),
    }),
  }),
  fc.record({
    req: fc.constant("note.update"),
    file: fc.constantFrom("b.db", "c.dbx"),
    note: fc.constantFrom(...ids),
    body: fc.record({ v: fc.integer() }),
  }),
  fc.record({
    req: fc.constant("note.delete"),
    file: fc.constantFrom("b.db", "c.dbx"),
    note: fc.constantFrom(...ids),
  }),
  fc.record({
    req: fc.constant("note.get"),
    file: fc.constantFrom("d.qi", "b.db"),
    delete: fc.boolean(),
    note: fc.constantFrom(...ids),
  }),
  fc.record({
    req: fc.constant("note.changes"),
    file: fc.constantFrom(...files),
    tracker: fc.constantFrom("t1", "t2"),
    max: fc.integer({ min: 1, max: 3 }),
    delete: fc.boolean(),
    deleted: fc.boolean(),
    stop: fc.boolean(),
  }),
  fc.record({
    req: fc.constant("note.template"),
    file: fc.constantFrom("a.qo", "b.db"),
    body: fc.constant({ v: 12 }),
  }),
  fc.record({
    req: fc.constant("note.template"),
    file: fc.constantFrom("a.qo", "b.db"),
    delete: fc.constant(true),
  }),
  fc.record({ req: fc.constant("file.clear"), file: fc.constant("a.qo") }),
  fc.constant({ req: "inbound" }),
);

function check(file: Notefile): void {
  const byChange = [...file.notes.values()].sort((p, q) => p.change - q.change);
  expect(file.ordered).toEqual(byChange);
  expect([...file.notes.values()]).toEqual(byChange);
  for (let i = 1; i < byChange.length; i++)
    expect(byChange[i]!.change).toBeGreaterThan(byChange[i - 1]!.change);
  expect(file.tombstones).toBe(byChange.filter((n) => n.deleted).length);
  if (byChange.length > 0) expect(file.meta.ctr).toBeGreaterThanOrEqual(byChange.at(-1)!.change);
}

function snapshot(t: TestModule) {
  const out: Record<string, unknown> = {};
  for (const file of t.module.notebox.files()) {
    out[file.name] = { ordered: file.ordered.map((n) => ({ ...n })), tombstones: file.tombstones };
  }
  return out;
}

describe("notefiles stay consistent through any sequence of requests", () => {
  it("keeps change order, tombstone counts and flash in step, even when flash fills up", async () => {
    let storageFull = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { maxLength: 60 }),
        fc.integer({ min: 150, max: 1000 }),
        async (reqs, capacity) => {
          const t = await bootTestModule({ capacity });
          let n = 0;
          for (const req of reqs) {
            if (req.req === "inbound") {
              const box = t.module.notebox;
              await box
                .transact(() => box.appendToQueue("d.qi", { body: { n: n++ }, time: 0 }))
                .catch(() => undefined);
            } else {
              const reply = await t.req(req);
              if (String(reply.err).includes("{file-storage-full}")) storageFull++;
            }
            for (const file of t.module.notebox.files()) check(file);
          }
          const before = snapshot(t);
          const after = await t.reboot();
          expect(snapshot(after)).toEqual(before);
        },
      ),
      { numRuns: 150 },
    );
    // Some requests must have hit a full flash, so that rollbacks were exercised too.
    expect(storageFull).toBeGreaterThan(0);
  });
});
