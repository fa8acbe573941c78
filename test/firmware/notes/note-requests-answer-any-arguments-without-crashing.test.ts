import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const names = [
  "note.add",
  "note.get",
  "note.update",
  "note.delete",
  "note.changes",
  "note.template",
  "file.changes",
  "file.changes.pending",
  "file.stats",
  "file.delete",
  "file.clear",
  "var.set",
  "var.get",
  "var.delete",
];
const fields = [
  "file",
  "files",
  "note",
  "body",
  "payload",
  "tracker",
  "max",
  "start",
  "reset",
  "stop",
  "delete",
  "deleted",
  "full",
  "sync",
  "verify",
  "live",
  "limit",
  "format",
  "length",
  "port",
  "name",
  "text",
  "value",
  "flag",
];

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    "data.qo",
    "a.db",
    "x.dbx",
    "in.qi",
    "_h.qo",
    "a,b.qo",
    "?",
    "1",
    "",
    "compact",
    "AQID",
    "!!",
  ),
  fc.constantFrom(-1, 0, 1, 25, 101, 256, 1e300, -0, 0.5),
  // template-shaped bodies
  fc.dictionary(
    fc.string({ maxLength: 4 }),
    fc.oneof(
      fc.constantFrom(true, 11, 14.1, 24, 18.1, "4", "x", 12.1, [14.1], [true, "2"]),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { maxKeys: 4 },
  ),
);
const request = fc.record({
  req: fc.constantFrom(...names),
  args: fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 6 }),
});

describe("note, file and var requests answer any arguments without crashing", () => {
  it("replies with a result or a module error, never an internal error, and keeps state readable", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 20 }), async (reqs) => {
        for (const { req, args } of reqs) {
          const reply = await t.req({ ...args, req });
          expect(typeof reply).toBe("object");
          if (reply.err !== undefined) expect(String(reply.err)).not.toMatch(/internal error/);
        }
      }),
      { numRuns: 300 },
    );
    expect(t.log.lines.filter((l) => l.level === "error")).toEqual([]);
    // Whatever was stored reads back after a restart.
    const after = await t.reboot();
    for (const file of after.module.notebox.files()) {
      expect(file.notes.size).toBe(t.module.notebox.file(file.name)?.notes.size);
    }
  });
});
