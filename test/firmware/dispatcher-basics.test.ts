import { describe, expect, it } from "vitest";
import { bootTestModule } from "../support/moduleFixture.js";

describe("request dispatcher", () => {
  it("answers req, echoes id, and sends nothing for cmd", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "echo", text: "hi", id: 7 })).toEqual({ text: "hi", id: 7 });
    expect(await t.module.request({ cmd: "echo", text: "hi" })).toBeUndefined();
    expect(await t.line('{"cmd":"echo"}')).toBeUndefined();
  });

  it("rejects neither or both of req and cmd", async () => {
    const t = await bootTestModule();
    expect((await t.req({ text: "x" })).err).toMatch(/\{io\}/);
    expect((await t.req({ req: "echo", cmd: "echo" })).err).toMatch(/\{io\}/);
  });

  it("answers an unknown request with {io} and {not-supported}", async () => {
    const t = await bootTestModule();
    const { err } = await t.req({ req: "card.frobnicate" });
    expect(err).toMatch(/\{io\}/);
    expect(err).toMatch(/\{not-supported\}/);
  });

  it("answers garbage and non-objects with a JSON object expected {io} error", async () => {
    const t = await bootTestModule();
    expect(await t.line('req":"card.location"}')).toMatch(/^\{"err":"JSON object expected: .*\{io\}"\}\r\n$/);
    expect(await t.line("[1,2]")).toMatch(/JSON object expected/);
    expect(await t.line("")).toBe("\r\n");
    expect(await t.line("\r")).toBe("\r\n");
  });

  it("verifies request CRCs and signs replies with the same sequence number", async () => {
    const t = await bootTestModule();
    const ok = await t.line(
      '{"req":"echo","text":"a","crc":"0009:' + crcOf('{"req":"echo","text":"a"}') + '"}',
    );
    expect(ok).toBe(`{"text":"a","crc":"0009:${crcOf('{"text":"a"}')}"}\r\n`);
    const bad = await t.line('{"req":"echo","text":"a","crc":"0009:00000000"}');
    expect(bad).toMatch(/\{io\}/);
  });

  it("reports a wrong field type as an {io} error", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "echo", text: true })).err).toBe(
      "cannot interpret JSON: bool being placed into a non-bool field {io}",
    );
  });
});

import { crc32Text } from "../../core/crc32.js";
function crcOf(text: string): string {
  return crc32Text(text).toString(16).toUpperCase().padStart(8, "0");
}

describe("unrecognized arguments", () => {
  it("are ignored like the real module does, with a warning in the log", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "echo", text: "a", txet: "typo" })).toEqual({ text: "a" });
    expect(t.log.lines.some((l) => l.level === "warn" && /txet/.test(l.message))).toBe(true);
  });

  it("are a {syntax} error in strict mode, and the request changes nothing", async () => {
    const t = await bootTestModule({ strictArgs: true });
    const commits = t.store.commits;
    const reply = await t.req({ req: "echo", text: "a", txet: "typo" });
    expect(reply.err).toBe("echo: unrecognized argument: txet {syntax}");
    expect(t.store.commits).toBe(commits);
  });
});

describe("a request cut short", () => {
  it("is answered like the real module's parser does, naming the last token read", async () => {
    const t = await bootTestModule();
    expect(await t.line('{"cmd":"hub.g')).toBe(
      `{"err":"cannot interpret JSON: premature end of input near '\\"hub.g ' {io}"}\r\n`,
    );
    expect(await t.line('{"req":"echo","text":')).toMatch(/premature end of input near ' ' \{io\}/);
  });
});
