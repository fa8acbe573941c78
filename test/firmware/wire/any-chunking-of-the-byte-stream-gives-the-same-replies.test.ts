import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SerialSession } from "../../../firmware/host/SerialSession.js";
import { LineFramer } from "../../../firmware/host/LineFramer.js";
import { bootTestModule } from "../../support/moduleFixture.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function runSession(chunks: Uint8Array[]): Promise<string> {
  const t = await bootTestModule();
  let out = "";
  const session = new SerialSession(t.module, { write: (b) => (out += decoder.decode(b)) });
  for (const chunk of chunks) session.receive(chunk);
  await session.idle();
  return out;
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let last = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(last, p));
    last = p;
  }
  chunks.push(bytes.subarray(last));
  return chunks;
}

const requestLine = fc.oneof(
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify({ req: "echo", text })),
  fc.constant('{"req":"card.nope"}'),
  fc.constant('{"cmd":"echo","text":"x"}'),
  fc.constant(""),
  fc.constant("not json"),
  fc.constant('{"req":"echo","text":5}'),
);

describe("serial line framing", () => {
  it("gives the same replies however the byte stream is chunked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(requestLine, fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (lines, cuts) => {
          const text = lines.map(([line, crlf]) => line + (crlf ? "\r\n" : "\n")).join("");
          const bytes = encoder.encode(text);
          const whole = await runSession([bytes]);
          const chunked = await runSession(split(bytes, cuts));
          const byteByByte = await runSession([...bytes].map((b) => Uint8Array.of(b)));
          expect(chunked).toBe(whole);
          expect(byteByByte).toBe(whole);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("ends replies with \\r\\n and answers a bare newline (either kind) with \\r\\n alone", async () => {
    const out = await runSession([encoder.encode('\n\r\n{"req":"echo","text":"a"}\r\n')]);
    expect(out).toBe('\r\n\r\n{"text":"a"}\r\n');
  });

  it("answers nothing for a cmd and exactly one line for each req", async () => {
    const out = await runSession([encoder.encode('{"cmd":"echo"}\n{"req":"echo","text":"b"}\n')]);
    expect(out).toBe('{"text":"b"}\r\n');
  });

  it("rejects an overlong line with {io} and reads the next line normally", async () => {
    const long = JSON.stringify({ req: "echo", text: "x".repeat(9000) });
    const out = await runSession([encoder.encode(long + "\n" + '{"req":"echo","text":"after"}\n')]);
    const [first, second] = out.split("\r\n");
    expect(first).toMatch(/"err":".*\{io\}.*\{too-big\}/);
    expect(second).toBe('{"text":"after"}');
  });

  it("survives a line longer than the link's buffer without holding it in memory", async () => {
    const t = await bootTestModule();
    let out = "";
    const session = new SerialSession(t.module, {
      write: (b) => (out += decoder.decode(b)),
      maxLineBytes: 1000,
    });
    for (let i = 0; i < 100; i++) session.receive(new Uint8Array(1000).fill(0x41));
    expect(session.pending).toBe(0);
    session.receive(encoder.encode('\n{"req":"echo","text":"ok"}\n'));
    await session.idle();
    const [first, second] = out.split("\r\n");
    expect(first).toMatch(/\{too-big\}/);
    expect(second).toBe('{"text":"ok"}');
  });
});

describe("LineFramer", () => {
  it("emits exactly the newline-separated lines of any input, whatever the chunking", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 10 }), (bytes, cuts) => {
        const lines: number[][] = [];
        const framer = new LineFramer({
          maxLineBytes: 1 << 20,
          onLine: (l) => lines.push([...l]),
          onOverflow: () => undefined,
        });
        for (const c of split(bytes, cuts)) framer.push(c);
        const expected: number[][] = [];
        let current: number[] = [];
        for (const b of bytes) {
          if (b === 0x0a) {
            expected.push(current);
            current = [];
          } else current.push(b);
        }
        expect(lines).toEqual(expected);
        expect(framer.pending).toBe(current.length);
      }),
    );
  });

  it("reports one overflow per overlong line and keeps the lines around it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.nat({ max: 200 }), { maxLength: 10 }),
        (max, lengths) => {
          const events: string[] = [];
          const framer = new LineFramer({
            maxLineBytes: max,
            onLine: (l) => events.push(`line:${l.length}`),
            onOverflow: (n) => events.push(`overflow:${n}`),
          });
          for (const n of lengths) framer.push(new Uint8Array(n + 1).fill(0x41).fill(0x0a, n));
          expect(events).toEqual(lengths.map((n) => (n > max ? `overflow:${n}` : `line:${n}`)));
        },
      ),
    );
  });
});
