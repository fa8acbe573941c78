import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { readMessage } from "../../protocol/readMessage.js";
import { readReply } from "../../protocol/readReply.js";
import type { ProtocolRequest } from "../../protocol/messages.js";

/** The second session's open and its reply in the recorded transcript (it carries a push and a close). */
const transcript = readFileSync(
  join(import.meta.dirname, "..", "fixtures", "sync", "v1-folded-sessions", "two-sessions.jsonl"),
  "utf8",
)
  .trimEnd()
  .split("\n")
  .map((line) => JSON.parse(line) as { dir: string; message?: JsonObject });
const opens = transcript.filter((l) => l.dir === "m2h" && l.message?.["type"] === "open");
const open = opens.at(-1)!.message!;
const reply = transcript[transcript.indexOf(opens.at(-1)!) + 1]!.message!;

const refusal = (message: unknown) => {
  try {
    readMessage(message);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/**
 * The `push` and `close` an `open` carries (docs/sync-protocol.md, "Folded messages") are read as
 * strictly as the messages they stand for: the hub refuses a batch or a close that does not read,
 * naming the field under `push.` or `close.`, and the module reads `pushed` and `closed`.
 */
describe("an open carrying a push and a close", () => {
  it("is recorded with both, and reads", () => {
    expect(open["push"]).toMatchObject({ file: "data.qo" });
    expect(open["close"]).toMatchObject({ why: "sync complete" });
    expect(refusal(open)).toBeUndefined();
  });

  it.each([
    [{ push: { ...(open["push"] as JsonObject), through: -1 } }, "push.through must be an integer from 0 up"],
    [{ push: { file: "a.qo", after: 2, through: 1, notes: [] } }, "push.through must not be below after"],
    [
      { push: { file: "a.qo", after: 0, through: 1, notes: [{ id: 7 }] } },
      "push.notes[0].id must be a string",
    ],
    [{ close: { usage: {} } }, "close.why must be a string"],
    [
      { close: { why: "x", usage: { bytes_sent: -1 } } },
      "close.usage.bytes_sent must be an integer from 0 up",
    ],
    [{ close: { why: "x", pull: "no" } }, "close.pull must be true or false"],
    [{ close: "now" }, "close must be an object"],
  ])("refuses %j naming the field", (fields, text) => {
    expect(refusal({ ...open, ...fields })).toContain(text);
  });

  it("takes exactly the batches a push message takes", () => {
    const batch = fc.record(
      {
        file: fc.constantFrom("a.qo", "", 7),
        after: fc.oneof(fc.nat(5), fc.constant(-1)),
        through: fc.oneof(fc.nat(5), fc.constant("1")),
        notes: fc.oneof(
          fc.constant([]),
          fc.constant([{ id: "1", when: 1, updates: 0, endpoint: "", change: 1 }]),
          fc.constant([{}]),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(batch, (b) => {
        const asPush = refusal({ v: 1, type: "push", token: "t", ...b }) === undefined;
        expect(refusal({ ...open, push: b }) === undefined).toBe(asPush);
      }),
      { seed: 26, numRuns: 300 },
    );
  });

  it("is answered pushed and closed, which the module reads, and refuses them mistyped", () => {
    const request = open as ProtocolRequest;
    expect(readReply(request, { ...reply, pushed: { merged: 1 }, closed: true })).toMatchObject({
      closed: true,
    });
    expect(() => readReply(request, { ...reply, pushed: { merged: -1 } })).toThrow(
      "pushed.merged must be an integer from 0 up",
    );
    expect(() => readReply(request, { ...reply, closed: "yes" })).toThrow("closed must be true or false");
  });
});
