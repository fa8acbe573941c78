import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isJsonObject, type JsonObject } from "../../core/json.js";

type JsonValue = unknown;
import type { ProtocolRequest } from "../../protocol/messages.js";
import { readReply, ReplyError } from "../../protocol/readReply.js";

/**
 * protocol/readReply.ts is the module's reader of its hub's replies, as protocol/readMessage.ts
 * is the hub's reader of a module's messages (fuzzed in test/hub/sync/sync-messages-are-checked-
 * and-refused-in-the-protocols-words.test.ts): whatever arrives, it returns a reply of the type
 * the request has, or throws its own `ReplyError` naming the field; never anything else.
 */

const isString = (v: unknown) => typeof v === "string";
const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isBoolean = (v: unknown) => typeof v === "boolean";
const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);
const isStringMap = (v: unknown) => isJsonObject(v) && Object.values(v).every(isString);
const optional = (check: (v: unknown) => boolean) => (v: unknown) => v === undefined || check(v);
const isNote = (v: unknown): boolean =>
  isJsonObject(v) &&
  isString(v["id"]) &&
  isCount(v["change"]) &&
  isNumber(v["when"]) &&
  isCount(v["updates"]) &&
  isString(v["endpoint"]) &&
  optional(isJsonObject)(v["body"]) &&
  optional(isString)(v["payload"]) &&
  optional((d) => d === true)(v["deleted"]) &&
  optional((c) => Array.isArray(c) && c.every(isNote))(v["conflicts"]);
const isImage = (v: unknown) =>
  isJsonObject(v) &&
  ["name", "source", "type", "md5"].every((k) => isString(v[k])) &&
  isCount(v["length"]) &&
  ["crc32", "created", "modified"].every((k) => isNumber(v[k]));

/** What a module acts on in each reply, written independently of the reader. */
const WELL_TYPED: Record<string, Record<string, (v: unknown) => boolean>> = {
  hello: { time: isNumber, challenge: isString, known: optional(isBoolean) },
  open: {
    session: isString,
    token: isString,
    time: isNumber,
    tracker: isString,
    reset: isBoolean,
    where: optional(isJsonObject),
    env: (v) =>
      isJsonObject(v) &&
      isStringMap(v["device"]) &&
      isStringMap(v["fleet"]) &&
      isStringMap(v["project"]) &&
      isNumber(v["modified"]),
    files: isStrings,
    deleted: optional(isStrings),
    signals: isCount,
  },
  push: { merged: isCount },
  pull: {
    file: isString,
    after: isCount,
    through: isCount,
    notes: (v) => Array.isArray(v) && v.every(isNote),
    more: isBoolean,
  },
  ack: { reset: optional(isBoolean) },
  signals: {
    signals: (v) =>
      Array.isArray(v) &&
      v.every((s) => isJsonObject(s) && isCount(s["seq"]) && isJsonObject(s["body"]) && isNumber(s["time"])),
    files: isStrings,
  },
  close: {},
  firmware: { user: optional(isImage), card: optional(isImage) },
  read: { name: isString, offset: isCount, data: isString, md5: isString },
  dfu: {},
  web: {
    status: isNumber,
    content: optional(isString),
    data: optional(isString),
    truncated: optional(isBoolean),
    received: optional(isCount),
  },
};

function wellTyped(type: string, reply: JsonObject): string[] {
  if (typeof reply["err"] === "string") return [];
  const problems = reply["v"] === 1 ? [] : [`v is ${JSON.stringify(reply["v"])}`];
  for (const [field, check] of Object.entries(WELL_TYPED[type]!))
    if (!check(reply[field])) problems.push(`${field}: ${JSON.stringify(reply[field])}`);
  return problems;
}

const request = (type: string, fields: JsonObject = {}): ProtocolRequest => ({ v: 1, type, ...fields });

/** Replies of every type, as a hub answers them. */
const MADE: { request: ProtocolRequest; reply: JsonObject }[] = [
  { request: request("hello"), reply: { v: 1, time: 1767225602000, challenge: "AZ/w5VmU09km" } },
  {
    request: request("open"),
    reply: {
      v: 1,
      session: "0a06474d",
      token: "e5c6c214",
      time: 1767225602000,
      tracker: "6c24b6d3",
      reset: false,
      where: { lat: 52.5, lon: 13.4, country: "DE", area: "Berlin", zone: "CET,Europe/Berlin", minutes: 60 },
      env: { device: { mode: "eco" }, fleet: {}, project: { limit: "40" }, modified: 1767225600 },
      files: ["commands.qi", "config.db"],
      deleted: ["old.db"],
      signals: 2,
    },
  },
  { request: request("push", { file: "data.qo" }), reply: { v: 1, merged: 2 } },
  {
    request: request("pull", { file: "config.db" }),
    reply: {
      v: 1,
      file: "config.db",
      after: 0,
      through: 3,
      notes: [
        {
          id: "limit",
          when: 1767225662,
          updates: 1,
          endpoint: "1",
          change: 2,
          body: { limit: 40 },
          history: { "1": 1 },
        },
        {
          id: "mode",
          when: 1767225663,
          updates: 2,
          endpoint: "1",
          change: 3,
          payload: "3q2+7w==",
          where: { lat: 1, lon: 2, time: 3 },
          conflicts: [{ id: "mode", when: 1, updates: 1, endpoint: "dev", change: 1, deleted: true }],
        },
      ],
      more: false,
    },
  },
  { request: request("ack", { file: "config.db" }), reply: { v: 1, reset: true } },
  {
    request: request("signals"),
    reply: { v: 1, signals: [{ seq: 4, body: { go: true }, time: 1767225600 }], files: ["commands.qi"] },
  },
  { request: request("close"), reply: { v: 1 } },
  {
    request: request("firmware"),
    reply: {
      v: 1,
      user: {
        name: "app$20260101.bin",
        source: "app.bin",
        type: "firmware",
        length: 4096,
        md5: "0123456789abcdef0123456789abcdef",
        crc32: 305419896,
        created: 1767225600,
        modified: 1767225600,
        version: "1.2.3",
        info: { product: "x" },
      },
    },
  },
  {
    request: request("read", { name: "app$20260101.bin", offset: 0 }),
    reply: {
      v: 1,
      name: "app$20260101.bin",
      offset: 0,
      data: "3q2+7w==",
      md5: "0123456789abcdef0123456789abcdef",
    },
  },
  { request: request("dfu"), reply: { v: 1 } },
  {
    request: request("web"),
    reply: { v: 1, status: 200, content: "application/json", data: "e30=", truncated: false },
  },
  {
    request: request("pull", { file: "x.qi" }),
    reply: { v: 1, err: "{session-expired} open a new session" },
  },
];

/** The replies recorded in the golden transcripts (test/fixtures/sync, read only here). */
function recorded(): { request: ProtocolRequest; reply: JsonObject }[] {
  const dir = join(import.meta.dirname, "..", "fixtures", "sync");
  const out: { request: ProtocolRequest; reply: JsonObject }[] = [];
  for (const folder of readdirSync(dir).sort())
    for (const file of readdirSync(join(dir, folder)).filter((f) => f.endsWith(".jsonl"))) {
      const lines = readFileSync(join(dir, folder, file), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as JsonObject);
      lines.forEach((line, i) => {
        const next = lines[i + 1];
        if (line["dir"] === "m2h" && next?.["dir"] === "h2m")
          out.push({ request: line["message"] as ProtocolRequest, reply: next["message"] as JsonObject });
      });
    }
  return out;
}

const VALID = [...MADE, ...recorded()];

/** Reads `reply`; fails the test on anything but a well-typed reply or a `ReplyError`. */
function readOrRefuse(req: ProtocolRequest, reply: unknown): ReplyError | undefined {
  try {
    const read = readReply(req, reply);
    expect(read).toBe(reply);
    expect(wellTyped(req.type, read)).toEqual([]);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ReplyError);
    const refused = error as ReplyError;
    expect(refused.message).toBe(`the hub's ${req.type} reply cannot be read: ${refused.text}`);
    return refused;
  }
}

/** Every place in a JSON value: a path of keys and indexes. */
function paths(value: JsonValue, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...prefix, i], ...paths(v, [...prefix, i])));
  else if (isJsonObject(value))
    for (const [k, v] of Object.entries(value))
      out.push([...prefix, k], ...paths(v as JsonValue, [...prefix, k]));
  return out;
}

/** A copy of `reply` with the value at `path` set to `to` (or removed, when `to` is undefined). */
function damaged(reply: JsonObject, path: (string | number)[], to: JsonValue | undefined): JsonObject {
  const copy = structuredClone(reply);
  let at: JsonValue = copy;
  for (const key of path.slice(0, -1)) at = (at as Record<string | number, JsonValue>)[key]!;
  const last = path.at(-1)!;
  if (to !== undefined) (at as Record<string | number, JsonValue>)[last] = to;
  else if (Array.isArray(at)) at.splice(last as number, 1);
  else delete (at as Record<string, JsonValue>)[last as string];
  return copy;
}

describe("the module's reader of hub replies", () => {
  it("takes every reply a hub gives, recorded ones included, as it is", () => {
    expect(VALID.length).toBeGreaterThan(MADE.length);
    for (const { request: req, reply } of VALID)
      expect(readOrRefuse(req, reply), JSON.stringify(reply)).toBeUndefined();
  });

  it("returns a well-typed reply or throws its own error, whatever JSON arrives", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(WELL_TYPED)), fc.jsonValue(), (type, reply) => {
        readOrRefuse(request(type, { file: "a.qi" }), reply);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(WELL_TYPED)),
        fc.dictionary(
          fc.constantFrom("v", "err", ...Object.values(WELL_TYPED).flatMap(Object.keys)),
          fc.jsonValue(),
        ),
        (type, fields) => {
          readOrRefuse(request(type, { file: "a.qi" }), { v: 1, ...fields });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses a valid reply damaged in one place, naming the field, or takes it well-typed", () => {
    // (An error reply is whole without its other fields: what damage makes of it is a reply of
    // the other kind, refused by its missing fields.)
    const cases = VALID.filter(({ reply }) => reply["err"] === undefined).flatMap(({ request: req, reply }) =>
      paths(reply).map((path) => ({ req, reply, path })),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...cases),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        ({ req, reply, path }, to) => {
          const refused = readOrRefuse(req, damaged(reply, path, to));
          // The rest of the reply is as the hub sent it: a refusal names the damaged field.
          if (refused)
            expect(refused.text, `${path.join(".")} -> ${JSON.stringify(to)}`).toContain(String(path[0]));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("names the field in words", () => {
    const pull = MADE.find((m) => m.request.type === "pull")!;
    const cases: [ProtocolRequest, unknown, string][] = [
      [request("hello"), "x", "a reply is one JSON object"],
      [request("hello"), { v: 1, time: 1, challenge: "" }, "challenge must not be empty"],
      [request("close"), { v: 2 }, "v must be 1, the protocol version the module speaks"],
      [request("push"), { v: 1, err: 7 }, "err must be a string"],
      [
        pull.request,
        damaged(pull.reply, ["notes", 1, "conflicts", 0, "id"], 3),
        "notes[1].conflicts[0].id must be a string",
      ],
      [pull.request, damaged(pull.reply, ["through"], 0.5), "through must be an integer from 0 up"],
      [pull.request, { ...pull.reply, file: "data.qi" }, "file must be config.db, the notefile asked for"],
      [
        request("signals"),
        { v: 1, signals: [{ seq: 1, time: 0 }], files: [] },
        "signals[0].body must be an object",
      ],
      [request("open"), damaged(MADE[1]!.reply, ["files", 0], ""), "files[0] must be a notefile name"],
      [request("nonsense"), { v: 1 }, "nonsense is no request of the protocol"],
    ];
    for (const [req, reply, text] of cases) {
      const refused = readOrRefuse(req, reply);
      expect(refused?.text, JSON.stringify(reply)).toBe(text);
    }
    // An error reply is the hub's answer, not a reply the module cannot read.
    expect(readReply(request("pull"), { v: 1, err: "{hub-error} x" })).toEqual({
      v: 1,
      err: "{hub-error} x",
    });
  });
});
