import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

describe("payloads are strict base64 of at most 256 bytes", () => {
  it("stores any payload of 1 to 256 bytes and returns it unchanged", async () => {
    const t = await bootTestModule();
    let i = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 256 }), async (bytes) => {
        const note = `n${i++}`;
        expect(await t.req({ req: "note.add", file: "p.dbx", note, payload: b64(bytes) })).toMatchObject({});
        expect(await t.req({ req: "note.get", file: "p.dbx", note })).toEqual({ payload: b64(bytes) });
      }),
      { numRuns: 200 },
    );
  });

  it("accepts base64 without its padding and answers with the padded form", async () => {
    const t = await bootTestModule();
    await t.req({ req: "note.add", file: "p.dbx", note: "a", payload: "AQI" });
    await t.req({ req: "note.add", file: "p.dbx", note: "b", payload: "AQ" });
    expect(await t.req({ req: "note.get", file: "p.dbx", note: "a" })).toEqual({ payload: "AQI=" });
    expect(await t.req({ req: "note.get", file: "p.dbx", note: "b" })).toEqual({ payload: "AQ==" });
  });

  it("refuses payloads over 256 bytes with {too-big} and stores nothing", async () => {
    const t = await bootTestModule();
    const commits = t.store.commits;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 257, maxLength: 600 }), async (bytes) => {
        const { err } = await t.req({ req: "note.add", payload: b64(bytes) });
        expect(err).toBe(`payload too large: ${bytes.length} bytes, a note carries at most 256 {too-big}`);
      }),
      { numRuns: 50 },
    );
    expect(t.store.commits).toBe(commits);
  });

  it("refuses anything that is not strict base64 and stores nothing", async () => {
    const t = await bootTestModule();
    const commits = t.store.commits;
    const corrupt = fc
      .tuple(
        fc.uint8Array({ minLength: 1, maxLength: 60 }),
        fc.nat(),
        fc.constantFrom(" ", "-", "_", "*", "é", "\n", "="),
      )
      .map(([bytes, at, bad]) => {
        const text = b64(bytes).replace(/=+$/, "");
        const i = at % text.length;
        // "=" is only bad inside the text; a trailing "=" could be legitimate padding.
        return bad === "=" && i === text.length - 1
          ? `${text}A=A`
          : text.slice(0, i) + bad + text.slice(i + 1);
      });
    const wrongLength = fc
      .array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 40 })
      .map((chars) => chars.join(""))
      .filter((s) => s.length % 4 === 1);
    await fc.assert(
      fc.asyncProperty(fc.oneof(corrupt, wrongLength), async (text) => {
        expect(await t.req({ req: "note.add", payload: text })).toEqual({
          err: "payload is not valid base64",
        });
      }),
      { numRuns: 300 },
    );
    for (const text of ["AQ=", "AR==", "AQI==", "====", "A===", "AB=C"]) {
      expect(await t.req({ req: "note.add", payload: text }), text).toEqual({
        err: "payload is not valid base64",
      });
    }
    expect(t.store.commits).toBe(commits);
  });
});
