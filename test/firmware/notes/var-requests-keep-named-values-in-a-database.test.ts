import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("var.* keep named values in a database", () => {
  it("sets and gets text, numbers and flags in vars.db", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "var.set", name: "mode", text: "eco" })).toEqual({});
    expect(await t.req({ req: "var.set", name: "limit", value: 12.5 })).toEqual({});
    expect(await t.req({ req: "var.set", name: "armed", flag: true })).toEqual({});
    expect(await t.req({ req: "var.get", name: "mode" })).toEqual({ text: "eco" });
    expect(await t.req({ req: "var.get", name: "limit" })).toEqual({ value: 12.5 });
    expect(await t.req({ req: "var.get", name: "armed" })).toEqual({ flag: true });
    expect(await t.req({ req: "note.get", file: "vars.db", note: "mode" })).toEqual({
      body: { text: "eco" },
    });
  });

  it("replaces the value on every set, and leaves out empty values like any reply", async () => {
    const t = await bootTestModule();
    await t.req({ req: "var.set", name: "v", text: "a" });
    await t.req({ req: "var.set", name: "v", value: 3, flag: false });
    expect(await t.req({ req: "var.get", name: "v" })).toEqual({ value: 3 });
    await t.req({ req: "var.set", name: "v", value: 0 });
    expect(await t.req({ req: "var.get", name: "v" })).toEqual({});
  });

  it("answers {note-noexist} for a missing or deleted variable", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "var.get", name: "nope" })).err).toBe(
      "error getting note: {note-noexist} note not found: nope",
    );
    await t.req({ req: "var.set", name: "v", text: "a" });
    expect(await t.req({ req: "var.delete", name: "v" })).toEqual({});
    expect((await t.req({ req: "var.get", name: "v" })).err).toMatch(/\{note-noexist\}/);
    expect((await t.req({ req: "var.delete", name: "v" })).err).toMatch(/\{note-noexist\}/);
  });

  it("uses the given database notefile, .dbx included, and refuses queues", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "var.set", file: "local.dbx", name: "k", text: "v" })).toEqual({});
    expect((await t.req({ req: "var.get", name: "k" })).err).toMatch(/\{note-noexist\}/);
    expect(await t.req({ req: "var.get", file: "local.dbx", name: "k" })).toEqual({ text: "v" });
    expect(await t.req({ req: "var.set", file: "shared.dbs", name: "k", value: 1 })).toEqual({});
    expect((await t.req({ req: "var.set", file: "q.qo", name: "k", text: "v" })).err).toMatch(
      /^\{notefile-queue-disallowed\} variables are kept in database notefiles/,
    );
    expect((await t.req({ req: "var.get", file: "x.txt", name: "k" })).err).toMatch(/not recognized/);
  });

  it("needs a name and a value", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "var.set", text: "v" })).err).toBe("no variable name specified");
    expect((await t.req({ req: "var.get" })).err).toBe("no variable name specified");
    expect((await t.req({ req: "var.delete", name: "" })).err).toBe("no variable name specified");
    expect((await t.req({ req: "var.set", name: "v" })).err).toBe("var.set needs a text, value or flag");
    expect((await t.req({ req: "var.set", name: "v", value: "1" })).err).toMatch(/\{io\}$/);
  });

  it("sync:true records a sync request; values survive a restart", async () => {
    const t = await bootTestModule();
    await t.req({ req: "var.set", name: "v", text: "a", sync: true });
    expect([...t.module.notebox.syncRequests()]).toEqual(["vars.db"]);
    const after = await t.reboot();
    expect(await after.req({ req: "var.get", name: "v" })).toEqual({ text: "a" });
  });
});
