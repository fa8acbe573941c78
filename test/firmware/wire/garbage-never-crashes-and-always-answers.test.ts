import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SerialSession } from "../../../firmware/host/SerialSession.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Feeds `bytes` then a probe request; returns the reply lines. */
async function feed(bytes: Uint8Array): Promise<string[]> {
  const t = await bootTestModule();
  let out = "";
  const session = new SerialSession(t.module, { write: (b) => (out += decoder.decode(b)) });
  session.receive(bytes);
  session.receive(encoder.encode('\n{"req":"echo","text":"probe"}\n'));
  await session.idle();
  expect(t.log.lines.filter((l) => l.level === "error")).toEqual([]);
  return out.split("\r\n").slice(0, -1);
}

function checkReplies(lines: string[]): void {
  // The probe always gets its answer, last.
  expect(lines.at(-1)).toBe('{"text":"probe"}');
  for (const line of lines.slice(0, -1)) {
    if (line === "") continue;
    const reply = JSON.parse(line) as Record<string, unknown>;
    expect(typeof reply).toBe("object");
    if (reply["err"] !== undefined) expect(String(reply["err"])).not.toMatch(/internal error/);
  }
}

/** A valid request, then damaged: characters dropped, inserted or replaced. */
const damagedRequest = fc
  .tuple(
    fc.constantFrom(
      '{"req":"note.add","body":{"temp":21.5},"sync":true}',
      '{"req":"hub.set","product":"com.example:x","mode":"periodic"}',
      '{"req":"card.version","crc":"0001:0BADF00D"}',
      '{"req":"echo","text":"hello","id":12}',
      '{"req":"note.get","file":"data.qi","delete":true}',
    ),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom("drop", "insert", "replace"),
        fc.string({ minLength: 1, maxLength: 1 }),
      ),
      { maxLength: 5 },
    ),
  )
  .map(([text, edits]) => {
    let s = text;
    for (const [at, kind, ch] of edits) {
      const i = at % (s.length + 1);
      if (kind === "drop") s = s.slice(0, i) + s.slice(i + 1);
      else if (kind === "insert") s = s.slice(0, i) + ch + s.slice(i);
      else s = s.slice(0, i) + ch + s.slice(i + 1);
    }
    return s.replace(/\n/g, " ");
  });

describe("garbage on the wire", () => {
  it("random bytes never crash the module and the next request is answered", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        checkReplies(await feed(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it("damaged JSON requests get {io} errors and nothing else breaks", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(damagedRequest, { minLength: 1, maxLength: 5 }), async (lines) => {
        checkReplies(await feed(encoder.encode(lines.join("\n"))));
      }),
      { numRuns: 300 },
    );
  });

  it("answers a non-JSON line with the rest of the line where parsing failed", async () => {
    const [reply] = await feed(encoder.encode('{req":"card.location"}'));
    expect(reply).toMatch(/^\{"err":"JSON object expected: .*req.*\{io\}"\}$/);
  });
});

/** Any JSON value, weighted towards the types request fields have. */
const anyValue = fc.oneof(
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    "-",
    "?",
    "",
    "data.qo",
    "vars.db",
    "x.dbx",
    "_health.qo",
    "bad,name.qo",
    "a.qi",
    "AAAA",
    "@@",
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

describe("every request with arguments of every type", () => {
  it("never fails inside the simulator", async () => {
    const t = await bootTestModule();
    const names = t.module.dispatcher.names();
    const fields = [
      "file",
      "note",
      "body",
      "payload",
      "name",
      "text",
      "value",
      "flag",
      "mode",
      "time",
      "delete",
      "deleted",
      "start",
      "stop",
      "reset",
      "max",
      "tracker",
      "files",
      "format",
      "length",
      "port",
      "verify",
      "full",
      "sync",
      "inbound",
      "outbound",
      "product",
      "sn",
      "host",
      "on",
      "off",
      "seconds",
      "vinbound",
      "voutbound",
      "details",
      "duration",
      "align",
      "names",
      "offset",
      "cobs",
      "status",
      "connected",
      "live",
      "binary",
      "key",
      "limit",
      "version",
      "alert",
      "usb",
      "set",
      "hours",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 5 }),
        async (name, args) => {
          if (name === "card.restore" || name === "card.restart") return;
          const reply = await t.module.request({ ...args, req: name });
          expect(reply).toBeTypeOf("object");
          if (reply?.["err"] !== undefined) expect(String(reply["err"])).not.toMatch(/internal error/);
        },
      ),
      { numRuns: 2000 },
    );
    expect(t.log.lines.filter((l) => l.level === "error")).toEqual([]);
  });
});
