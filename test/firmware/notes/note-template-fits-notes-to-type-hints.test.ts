import { describe, expect, it } from "vitest";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";

const readings = { new_vals: true, temperature: 14.1, humidity: 11, pump_state: "4" };

/** Adds one note to a templated .dbx and returns it as note.get shows it. */
async function roundTrip(t: TestModule, body: object, extra: object = {}): Promise<Record<string, unknown>> {
  const added = await t.req({ req: "note.add", file: "t.dbx", note: "n", body, ...extra });
  if (added.err) return added;
  const got = await t.req({ req: "note.get", file: "t.dbx", note: "n" });
  await t.req({ req: "note.delete", file: "t.dbx", note: "n" });
  return got;
}

async function templated(template: object, options: object = {}): Promise<TestModule> {
  const t = await bootTestModule();
  const reply = await t.req({ req: "note.template", file: "t.dbx", body: template, ...options });
  expect(reply.err).toBeUndefined();
  return t;
}

describe("note.template fits notes to type hints", () => {
  it("reports the documented bytes per note: 40, and 72 with a 32-byte payload", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "readings.qo", body: readings })).toEqual({ bytes: 40 });
    expect(await t.req({ req: "note.template", file: "readings.qo", body: readings, length: 32 })).toEqual({
      bytes: 72,
    });
  });

  it("answers a templated note.add with template:true and the total", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "readings.qo", body: readings });
    const body = { new_vals: true, temperature: 22.22, humidity: 43, pump_state: "off" };
    expect(await t.req({ req: "note.add", file: "readings.qo", body })).toEqual({ total: 1, template: true });
    expect((await t.req({ req: "note.changes", file: "readings.qo" })).notes).toEqual({
      "1": { body, time: 0 },
    });
  });

  it("truncates fixed-length strings and keeps variable-length ones", async () => {
    const t = await templated({ fixed: "4", utf8: "2", free: "any text" });
    expect(await roundTrip(t, { fixed: "active", utf8: "héllo", free: "x".repeat(300) })).toEqual({
      body: { fixed: "acti", utf8: "h", free: "x".repeat(300) },
    });
  });

  it("stores integers of each width and refuses values that do not fit", async () => {
    const hints = { i1: 11, i2: 12, i3: 13, i4: 14, i5: 15, i6: 16, i7: 17, i8: 18, legacy: 1 };
    const unsigned = { u1: 21, u2: 22, u3: 23, u4: 24, u5: 25, u6: 26, u7: 27, u8: 28 };
    const t = await templated({ ...hints, ...unsigned });
    const body = {
      i1: -128,
      i2: 32767,
      i3: -8388608,
      i4: 2147483647,
      i5: -549755813888,
      i6: 140737488355327,
      i7: -36028797018963968,
      i8: -9223372036854775808,
      legacy: -5,
      u1: 255,
      u2: 65535,
      u3: 16777215,
      u4: 4294967295,
      u5: 1099511627775,
      u6: 281474976710655,
      u7: 72057594037927930,
      u8: 18446744073709550000,
    };
    expect(await roundTrip(t, body)).toEqual({ body });
    for (const [field, value] of [
      ["i1", 128],
      ["i1", -129],
      ["u1", 256],
      ["u1", -1],
      ["i4", 2147483648],
      ["u8", 2 ** 64],
      ["i8", 2 ** 63],
    ] as const) {
      expect((await roundTrip(t, { [field]: value })).err).toMatch(
        new RegExp(
          `^error adding note: .* does not fit the .* field ${field} because of template \\{template-incompatible\\}$`,
        ),
      );
    }
  });

  it("stores floats at the hinted precision and prints them in their shortest form", async () => {
    const t = await templated({ half: 12.1, single: 14.1, double: 18.1, legacy: 1.1 });
    expect(await roundTrip(t, { half: 3.14159, single: 22.22, double: 0.1 + 0.2, legacy: 1e-300 })).toEqual({
      body: { half: 3.14, single: 22.22, double: 0.30000000000000004, legacy: 1e-300 },
    });
    expect(await roundTrip(t, { half: 1, single: 16777217 })).toEqual({
      body: { half: 1, single: 16777216 },
    });
    expect((await roundTrip(t, { half: 70000 })).err).toMatch(/does not fit the 2-byte float field half/);
    expect((await roundTrip(t, { single: 1e39 })).err).toMatch(/does not fit the 4-byte float field single/);
  });

  it("refuses values of the wrong type with the module's error text", async () => {
    const t = await templated({
      flag: true,
      count: 11,
      reading: 14.1,
      name: "10",
      list: [11],
      obj: { a: 11 },
    });
    const cases: [object, string][] = [
      [{ count: 43.22 }, "integer"],
      [{ count: "43" }, "integer"],
      [{ flag: 1 }, "boolean"],
      [{ reading: "1.5" }, "number"],
      [{ name: 5 }, "string"],
      [{ list: 5 }, "array"],
      [{ list: [1.5] }, "integer"],
      [{ obj: [1] }, "object"],
      [{ obj: { a: true } }, "integer"],
    ];
    for (const [body, kind] of cases) {
      expect((await roundTrip(t, body)).err).toBe(`error adding note: ${kind} expected because of template`);
    }
    expect(t.module.notebox.file("t.dbx")!.notes.size).toBe(0);
  });

  it("leaves out empty fields unless the note was added with full:true", async () => {
    const t = await templated({
      alert: true,
      warning: true,
      temp: 14.1,
      count: 12,
      status: "x",
      prevstatus: "x",
    });
    const body = { alert: true, warning: false, temp: 23.4, count: 0, status: "ok", prevstatus: "" };
    expect(await roundTrip(t, body)).toEqual({ body: { alert: true, temp: 23.4, status: "ok" } });
    expect(await roundTrip(t, body, { full: true })).toEqual({ body });
    expect(await roundTrip(t, { alert: true }, { full: true })).toEqual({
      body: { alert: true, warning: false, temp: 0, count: 0, status: "", prevstatus: "" },
    });
  });

  it("keeps fixed arrays at their length and variable arrays at any length", async () => {
    const t = await templated({ fixed: [true, 14.1, 11, "4"], varying: [12.1], nested: { deep: { v: 21 } } });
    expect(
      await roundTrip(t, { fixed: [true, 1.5], varying: [1, 2, 3, 0.5], nested: { deep: { v: 7 } } }),
    ).toEqual({
      body: { fixed: [true, 1.5, 0, ""], varying: [1, 2, 3, 0.5], nested: { deep: { v: 7 } } },
    });
    expect(await roundTrip(t, { fixed: [false, 0, 0, "abcdef"] })).toEqual({
      body: { fixed: [false, 0, 0, "abcd"], varying: [], nested: { deep: {} } },
    });
    expect((await roundTrip(t, { fixed: [true, 1, 2, "x", 5] })).err).toMatch(
      /^error adding note: array fixed has more than 4 elements because of template \{template-incompatible\}$/,
    );
  });

  it("drops fields the template has no place for, and says so in the log", async () => {
    const t = await templated({ a: 11 });
    expect(await roundTrip(t, { a: 1, extra: "lost", more: { x: 1 } })).toEqual({ body: { a: 1 } });
    const warning = t.log.lines.find((l) => l.message === "note fields not in the template were dropped");
    expect(warning?.fields).toEqual({ file: "t.dbx", fields: ["extra", "more"] });
  });

  it("treats any field name as a plain name, __proto__ and constructor included", async () => {
    const t = await bootTestModule();
    await t.line(
      '{"req":"note.template","file":"t.dbx","body":{"__proto__":11,"constructor":12,"toString":"x"}}',
    );
    await t.line('{"req":"note.add","file":"t.dbx","note":"n","body":{"__proto__":5,"toString":"y"}}');
    expect(await t.line('{"req":"note.get","file":"t.dbx","note":"n"}')).toBe(
      '{"body":{"__proto__":5,"toString":"y"}}\r\n',
    );
    await t.line('{"req":"note.add","file":"u.dbx","note":"n","body":{"__proto__":{"a":1}}}');
    const after = await t.reboot();
    expect(await after.line('{"req":"note.get","file":"u.dbx","note":"n"}')).toBe(
      '{"body":{"__proto__":{"a":1}}}\r\n',
    );
    expect(await after.line('{"req":"note.get","file":"t.dbx","note":"n"}')).toBe(
      '{"body":{"__proto__":5,"toString":"y"}}\r\n',
    );
  });

  it("refuses hints that are not type hints", async () => {
    const t = await bootTestModule();
    for (const hint of [10, 19, 20, 29, 12.5, 15.1, null, []]) {
      const err = (await t.req({ req: "note.template", file: "t.qo", body: { f: hint } })).err;
      expect(err, JSON.stringify(hint)).toMatch(/^error creating template: f/);
    }
    expect(t.module.notebox.file("t.qo")).toBeUndefined();
  });

  it("limits the payload to the template's length; -1 removes the limit", async () => {
    const t = await templated({ a: 11 }, { length: 2 });
    expect(await roundTrip(t, { a: 1 }, { payload: "AQI=" })).toEqual({ body: { a: 1 }, payload: "AQI=" });
    expect((await roundTrip(t, { a: 1 }, { payload: "AQID" })).err).toBe(
      "error adding note: payload is 3 bytes but the template allows 2 {template-incompatible}",
    );
    await t.req({ req: "note.template", file: "t.dbx", body: { a: 11 }, length: -1 });
    expect(await roundTrip(t, { a: 1 }, { payload: "AQID" })).toEqual({ body: { a: 1 }, payload: "AQID" });
    expect((await t.req({ req: "note.template", file: "t.dbx", body: {}, length: 257 })).err).toMatch(
      /^template length must be/,
    );
  });

  it("makes payload-only templates from an empty body", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "p.qo", body: {}, length: 8 })).toEqual({ bytes: 31 });
    expect(await t.req({ req: "note.add", file: "p.qo", payload: "AQID" })).toEqual({
      total: 1,
      template: true,
    });
    expect((await t.req({ req: "note.changes", file: "p.qo" })).notes).toEqual({
      "1": { payload: "AQID", time: 0 },
    });
  });

  it("verify returns the current template; without one it returns nothing", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({});
    await t.req({ req: "note.template", file: "r.qo", body: readings, length: 32, port: 5 });
    // port is ignored on a cellular module (schema), so verify has none to report.
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({
      template: true,
      body: readings,
      bytes: 72,
      length: 32,
    });
    expect(
      await t.req({ req: "note.template", file: "r.qo", body: { a: 11 }, format: "compact", verify: true }),
    ).toEqual({
      bytes: 8,
      template: true,
      body: { a: 11 },
      format: "compact",
    });
  });

  it("no body (and no length) clears the template; notes go back to free-form JSON", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    // delete is a template attribute, not a removal: without a body this request still clears.
    expect(await t.req({ req: "note.template", file: "r.qo", delete: true })).toEqual({});
    expect(await t.req({ req: "note.add", file: "r.qo", body: { a: 1.5, b: "x" } })).toEqual({ total: 1 });
    await t.req({ req: "note.template", file: "r.qo", body: { a: 11 } });
    expect(await t.req({ req: "note.template", file: "r.qo" })).toEqual({});
    expect(await t.req({ req: "note.template", file: "r.qo", verify: true })).toEqual({});
    expect(await t.req({ req: "note.template", file: "never.qo" })).toEqual({});
  });

  // Inbound queues too: the satellite guide (dev.blues.io/starnote/satellite-best-practices,
  // "Optimize Use of Compact Templates") has hosts template the .qi files the hub sends over NTN.
  it("applies to outbound and inbound queues and databases", async () => {
    const t = await bootTestModule();
    for (const file of ["a.qo", "a.qos", "a.db", "a.dbs", "a.dbx", "a.qi", "a.qis"]) {
      expect(await t.req({ req: "note.template", file, body: { a: 11 } })).toEqual({ bytes: 24 });
    }
    expect((await t.req({ req: "note.template", body: { a: 11 } })).err).toBe("no notefile specified");
  });

  it("applies to note.update too", async () => {
    const t = await templated({ a: 11 });
    await t.req({ req: "note.update", file: "t.dbx", note: "n", body: { a: 5, b: 1 } });
    expect(await t.req({ req: "note.get", file: "t.dbx", note: "n" })).toEqual({ body: { a: 5 } });
    expect((await t.req({ req: "note.update", file: "t.dbx", note: "n", body: { a: 500 } })).err).toMatch(
      /\{template-incompatible\}$/,
    );
  });

  describe("ports and formats", () => {
    it("takes ports 1-100 on a satellite module, each port on one notefile", async () => {
      const t = await bootTestModule({ variant: "ntn" });
      const compact = { req: "note.template", body: {}, format: "compact" };
      const set = { template: true, format: "compact", bytes: 7 };
      expect(await t.req({ ...compact, file: "a.qo", port: 1 })).toEqual(set);
      expect((await t.req({ ...compact, file: "b.qo", port: 1 })).err).toBe(
        "template port 1 is already used by a.qo",
      );
      expect(await t.req({ ...compact, file: "a.qo", body: { x: 11 }, port: 1 })).toEqual({
        ...set,
        bytes: 8,
      });
      expect(await t.req({ ...compact, file: "b.qo", port: 100 })).toEqual(set);
    });

    it("checks ports 1-100 or -1 everywhere, and the format", async () => {
      const t = await bootTestModule();
      expect(await t.req({ req: "note.template", file: "c.qo", body: {}, port: -1 })).toEqual({ bytes: 23 });
      for (const port of [0.5, 101, -2]) {
        expect(
          (await t.req({ req: "note.template", file: "c.qo", body: {}, port })).err,
          String(port),
        ).toMatch(/^template port must be/);
      }
      expect((await t.req({ req: "note.template", file: "c.qo", body: {}, format: "tiny" })).err).toMatch(
        /^unknown template format/,
      );
    });

    it.each(["lora", "ntn"] as const)("requires a port and the compact format on %s", async (variant) => {
      const t = await bootTestModule({ variant });
      expect((await t.req({ req: "note.template", file: "a.qo", body: { a: 11 } })).err).toBe(
        `a template needs a port (1 to 100) on ${variant}`,
      );
      expect((await t.req({ req: "note.template", file: "a.qo", body: { a: 11 }, port: 3 })).err).toBe(
        `a template must use format "compact" on ${variant}`,
      );
      expect(
        await t.req({ req: "note.template", file: "a.qo", body: { a: 11 }, port: 3, format: "compact" }),
      ).toEqual({ template: true, format: "compact", bytes: 8 });
    });

    it("compact templates drop the note's time unless they carry _time", async () => {
      const t = await bootTestModule({ timeKnown: true });
      await t.req({ req: "note.template", file: "c.qo", body: { v: 12 }, format: "compact" });
      await t.req({ req: "note.add", file: "c.qo", body: { v: 1 } });
      await t.req({ req: "note.template", file: "k.qo", body: { v: 12, _time: 14 }, format: "compact" });
      await t.req({ req: "note.add", file: "k.qo", body: { v: 1 } });
      await t.req({ req: "note.add", file: "k.qo", body: { v: 2, _time: 1_700_000_000 } });
      expect((await t.req({ req: "note.changes", file: "c.qo" })).notes).toEqual({
        "1": { body: { v: 1 }, time: 0 },
      });
      expect((await t.req({ req: "note.changes", file: "k.qo" })).notes).toEqual({
        "1": { body: { v: 1 }, time: t.module.time() },
        "2": { body: { v: 2 }, time: 1_700_000_000 },
      });
    });

    it("compact templates take _lat/_lon as floats and _ltime/_time as 14, and count them in bytes", async () => {
      const t = await bootTestModule();
      const body = { temperature: 14.1, _lat: 14.1, _lon: 18.1, _ltime: 14, _time: 14 };
      expect(await t.req({ req: "note.template", file: "c.qo", body, format: "compact" })).toEqual({
        template: true,
        format: "compact",
        bytes: 7 + 4 + 4 + 8 + 4 + 4,
      });
      await t.req({
        req: "note.add",
        file: "c.qo",
        body: { temperature: 1.5, _lat: 42.5, _lon: -71.25, _ltime: 5 },
      });
      expect((await t.req({ req: "note.changes", file: "c.qo" })).notes).toEqual({
        "1": { body: { temperature: 1.5, _lat: 42.5, _lon: -71.25, _ltime: 5 }, time: 0 },
      });
      for (const [key, hint] of [
        ["_lat", 14],
        ["_lon", "x"],
        ["_ltime", 18],
        ["_time", 14.1],
      ] as const) {
        expect(
          (await t.req({ req: "note.template", file: "d.qo", body: { [key]: hint }, format: "compact" })).err,
        ).toMatch(new RegExp(`^error creating template: ${key} in a compact template takes`));
      }
    });

    it("compact strings hold at most 255 bytes", async () => {
      const t = await bootTestModule();
      await t.req({ req: "note.template", file: "c.qo", body: { s: "text" }, format: "compact" });
      expect(await t.req({ req: "note.add", file: "c.qo", body: { s: "x".repeat(255) } })).toEqual({
        total: 1,
        template: true,
      });
      expect((await t.req({ req: "note.add", file: "c.qo", body: { s: "x".repeat(256) } })).err).toBe(
        "error adding note: compact mode only supports strings up to 255 bytes {template-incompatible}",
      );
    });
  });
});
