import { describe, expect, it } from "vitest";
import { parseRecordKey } from "../../../firmware/storage/Notebox.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

const template = { new_vals: true, temperature: 14.1, humidity: 11, pump_state: "4" };
const body = { new_vals: true, temperature: 22.5, humidity: 43, pump_state: "on" };

/** The flash records of one notefile's notes. */
function noteRecords(t: TestModule, file: string): Uint8Array[] {
  return [...t.store.records]
    .filter(([key]) => {
      const { kind, parts } = parseRecordKey(key);
      return kind === "n" && parts[0] === file;
    })
    .map(([, value]) => value);
}

function fileRecord(t: TestModule, file: string): Record<string, unknown> {
  for (const [key, value] of t.store.records) {
    const { kind, parts } = parseRecordKey(key);
    if (kind === "f" && parts[0] === file) return JSON.parse(new TextDecoder().decode(value));
  }
  throw new Error(`no record for ${file}`);
}

describe("templated notes are stored in their binary form", () => {
  it("takes far less flash than the same notes without a template", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await t.req({ req: "note.template", file: "small.qo", body: template });
    for (let i = 0; i < 50; i++) {
      await t.req({ req: "note.add", file: "small.qo", body });
      await t.req({ req: "note.add", file: "json.qo", body });
    }
    const size = (file: string) => noteRecords(t, file).reduce((n, r) => n + r.length, 0);
    const binary = noteRecords(t, "small.qo");
    expect(binary).toHaveLength(50);
    expect(binary.every((r) => r[0] === 0xb1)).toBe(true);
    expect(noteRecords(t, "json.qo").every((r) => r[0] === "{".charCodeAt(0))).toBe(true);
    expect(size("small.qo")).toBeLessThan(size("json.qo") / 3);
  });

  it("reads templated notes back exactly after a restart", async () => {
    const t = await bootTestModule({ timeKnown: true });
    await t.req({
      req: "note.template",
      file: "r.dbs",
      body: { ...template, list: [14.1], obj: { s: "x" } },
    });
    await t.req({
      req: "note.add",
      file: "r.dbs",
      note: "a",
      body: { ...body, list: [1.5, 2], obj: { s: "é" } },
    });
    await t.req({
      req: "note.add",
      file: "r.dbs",
      note: "b",
      body: { humidity: 0 },
      full: true,
      payload: "AAEC",
    });
    await t.req({ req: "note.add", file: "r.dbs", note: "c", body: { humidity: 1 } });
    await t.req({ req: "note.delete", file: "r.dbs", note: "c" });
    const before = await t.req({ req: "note.changes", file: "r.dbs", deleted: true });
    const after = await t.reboot();
    expect(await after.req({ req: "note.changes", file: "r.dbs", deleted: true })).toEqual(before);
    expect((before.notes as Record<string, object>)["b"]).toEqual({
      body: { new_vals: false, temperature: 0, humidity: 0, pump_state: "", list: [], obj: { s: "" } },
      payload: "AAEC",
      time: t.module.time(),
    });
  });

  it("keeps notes of an earlier template readable after re-templating", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    await t.req({ req: "note.add", file: "r.qo", body: { a: 5, b: 1 } });
    await t.req({ req: "note.template", file: "r.qo", body: { b: 21, c: "2" } });
    await t.req({ req: "note.add", file: "r.qo", body: { a: 5, b: 1, c: "xyz" } });
    await t.req({ req: "note.template", file: "r.qo" });
    await t.req({ req: "note.add", file: "r.qo", body: { free: [1, "form"] } });
    const expected = {
      "1": { body: { a: 5 }, time: 0 },
      "2": { body: { b: 1, c: "xy" }, time: 0 },
      "3": { body: { free: [1, "form"] }, time: 0 },
    };
    expect((await t.req({ req: "note.changes", file: "r.qo" })).notes).toEqual(expected);
    const after = await t.reboot();
    expect((await after.req({ req: "note.changes", file: "r.qo" })).notes).toEqual(expected);
    expect(Object.keys(fileRecord(after, "r.qo")["templates"] as object)).toEqual(["1", "2"]);
  });

  it("reuses the template when the same one is set again, and forgets templates no note uses", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    expect(fileRecord(t, "r.qo")).toMatchObject({ template: 1, templates: { "1": { body: { a: 11 } } } });
    await t.req({ req: "note.add", file: "r.qo", body: { a: 1 } });
    await t.req({ req: "note.template", file: "r.qo", body: { a: 12 } });
    expect(fileRecord(t, "r.qo")).toMatchObject({ template: 2 });
    expect(Object.keys(fileRecord(t, "r.qo")["templates"] as object)).toEqual(["1", "2"]);
    await t.req({ req: "note.changes", file: "r.qo", delete: true });
    await t.req({ req: "note.template", file: "r.qo", body: { a: 13 } });
    expect(Object.keys(fileRecord(t, "r.qo")["templates"] as object)).toEqual(["2", "3"]);
    await t.req({ req: "note.template", file: "r.qo", delete: true });
    expect(fileRecord(t, "r.qo")["templates"]).toBeUndefined();
  });

  it("keeps the template when the notefile is cleared, and drops it with the notefile", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    await t.req({ req: "note.add", file: "r.qo", body: { a: 1 } });
    await t.req({ req: "file.clear", file: "r.qo" });
    expect(await t.req({ req: "note.add", file: "r.qo", body: { a: 1 } })).toEqual({
      total: 1,
      template: true,
    });
    await t.req({ req: "file.delete", files: ["r.qo"] });
    expect(await t.req({ req: "note.add", file: "r.qo", body: { a: 1 } })).toEqual({ total: 1 });
  });
});
