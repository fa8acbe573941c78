import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../../core/jsonDepth.js";
import type { JsonObject } from "../../../core/json.js";
import { bootTestModule } from "../../support/moduleFixture.js";

/** Arrays nested `levels` deep: `[[…[]…]]`. */
const arrays = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);

/** `{"req":"note.add",…,"body":{"a":<arrays>}}`: nested `levels` deep in all. */
const noteAdd = (levels: number): string =>
  `{"req":"note.add","file":"deep.qo","body":{"a":${arrays(levels - 2)}}}`;

/**
 * The module caps nesting at the same MAX_JSON_DEPTH as the hub (core/jsonDepth.ts): a request
 * line nested deeper gets a clear {io} error, like other malformed JSON, and changes nothing.
 */
describe("a request nested past 100 levels gets a clear {io} error", () => {
  it("refuses the line before it is parsed, at any depth past the limit, and stores nothing", async () => {
    const t = await bootTestModule({ maxRequestBytes: 1 << 20 });
    const commits = t.store.commits;
    for (const levels of [MAX_JSON_DEPTH + 1, 4_100, 200_000]) {
      const reply = await t.line(noteAdd(levels));
      expect(reply, `${levels} levels`).toBe(
        `{"err":"cannot interpret JSON: a request may nest objects and arrays at most ${MAX_JSON_DEPTH} levels deep {io}"}\r\n`,
      );
    }
    expect(t.store.commits).toBe(commits);
    expect(t.log.lines.filter((l) => l.level === "error")).toEqual([]);
    // The module answers normally afterwards.
    expect(await t.line('{"req":"echo","text":"still here"}')).toBe('{"text":"still here"}\r\n');
  });

  it("accepts a request nested exactly to the limit", async () => {
    const t = await bootTestModule();
    const reply = JSON.parse((await t.line(noteAdd(MAX_JSON_DEPTH)))!) as JsonObject;
    expect(reply.err).toBeUndefined();
    expect(reply.total).toBe(1);
  });

  it("refuses the same nesting in a request object handed over in process", async () => {
    const t = await bootTestModule();
    let body: unknown = [];
    for (let i = 0; i < 4_100; i++) body = [body];
    const reply = await t.req({ req: "note.add", file: "deep.qo", body: { a: body } as JsonObject });
    expect(reply.err).toMatch(/at most 100 levels deep \{io\}/);
  });
});
