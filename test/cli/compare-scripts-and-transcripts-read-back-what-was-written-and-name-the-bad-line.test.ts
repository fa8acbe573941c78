import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatTranscript,
  parseScript,
  parseTranscript,
  TRANSCRIPT_FORMAT,
  type Transcript,
} from "../../cli/compare/script.js";
import "../support/fastCheckSeed.js";

const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>;
const request = fc
  .tuple(
    fc.constantFrom("req", "cmd"),
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.dictionary(
      fc.string({ maxLength: 8 }).filter((k) => k !== "req" && k !== "cmd" && k !== "__proto__"),
      json,
      {
        maxKeys: 4,
      },
    ),
  )
  .map(([kind, name, rest]) => ({ [kind]: name, ...rest }) as Record<string, unknown>);
const comment = fc.constantFrom("", "   ", "# a comment", "// another", "\t");

describe("a compare script", () => {
  it("reads back every request written one a line, whatever comments and blank lines surround them", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(comment, request), { minLength: 1, maxLength: 12 }), (lines) => {
        const text = lines.map(([c, r]) => `${c}\n${JSON.stringify(r)}`).join("\r\n");
        const steps = parseScript(text, "s.jsonl");
        expect(steps.map((s) => s.request)).toEqual(lines.map(([, r]) => JSON.parse(JSON.stringify(r))));
        for (const step of steps)
          expect(JSON.parse(text.split(/\r?\n/)[step.line - 1]!)).toEqual(step.request);
      }),
    );
  });

  it("names the file and line of anything that is not a request, in one line", () => {
    fc.assert(
      fc.property(
        fc.array(request, { maxLength: 5 }),
        json.filter(
          (v) => typeof v !== "object" || v === null || Array.isArray(v) || !("req" in v || "cmd" in v),
        ),
        (before, bad) => {
          const text = [...before.map((r) => JSON.stringify(r)), JSON.stringify(bad)].join("\n");
          expect(() => parseScript(text, "s.jsonl")).toThrow(
            new RegExp(`^s\\.jsonl:${before.length + 1}: the line (is not a JSON object|has no "req")`),
          );
        },
      ),
    );
    expect(() => parseScript('{"req":"a"}\n{"req":', "s.jsonl")).toThrow(
      /^s\.jsonl:2: not JSON \(.*\): one request a line$/,
    );
    expect(() => parseScript('{"req":"a","cmd":"b"}', "s.jsonl")).toThrow(/has both "req" and "cmd"/);
    expect(() => parseScript("# nothing\n\n", "s.jsonl")).toThrow(/^s\.jsonl has no requests/);
  });
});

describe("a compare transcript", () => {
  it("reads back what was written: the header, each request with its reply, none for a cmd", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            request,
            fc.option(fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 }), { nil: undefined }),
          ),
          { maxLength: 8 },
        ),
        (pairs) => {
          const transcript: Transcript = {
            header: { format: TRANSCRIPT_FORMAT, version: 1, sku: "NOTE-ESP", port: "/dev/x" },
            entries: pairs.map(([r, reply]) =>
              reply === undefined ? { request: r } : { request: r, reply },
            ),
          };
          const read = parseTranscript(formatTranscript(transcript), "t.jsonl");
          expect(read).toEqual(JSON.parse(JSON.stringify(transcript)));
        },
      ),
    );
  });

  it("that is not one says what to do", () => {
    expect(() => parseTranscript('{"req":"card.version"}\n', "t.jsonl")).toThrow(
      /^t\.jsonl is not a transcript of cardsim compare .*record one with --record FILE$/,
    );
    expect(() => parseTranscript("", "t.jsonl")).toThrow(/is not a transcript/);
    const header = JSON.stringify({ format: TRANSCRIPT_FORMAT, version: 1, sku: "NOTE-ESP" });
    expect(() => parseTranscript(`${header}\n{"reply":{}}\n`, "t.jsonl")).toThrow(
      /^t\.jsonl:2: its "request" is missing$/,
    );
    expect(() => parseTranscript(`${header}\n{"request":{"req":"a"},"reply":[1]}\n`, "t.jsonl")).toThrow(
      /^t\.jsonl:2: its "reply" is not a JSON object$/,
    );
    expect(() => parseTranscript(`${header}\n{"request":`, "t.jsonl")).toThrow(/^t\.jsonl:2: not JSON/);
  });
});
