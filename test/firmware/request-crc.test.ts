import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { crc32, crc32Text } from "../../core/crc32.js";
import { appendCrc, checkRequestCrc } from "../../firmware/host/RequestCrc.js";
import { crc32 as zlibCrc32 } from "node:zlib";

describe("request CRC (reference §3.2 vectors)", () => {
  it("adds the field after a comma, or a space for an empty object", () => {
    expect(appendCrc('{"req": "hub.sync"}', 1)).toBe('{"req": "hub.sync","crc":"0001:DF2B9115"}');
    expect(appendCrc("{}", 1)).toBe('{ "crc":"0001:A3A6BF43"}');
    expect(appendCrc('{"total":1}', 5)).toBe('{"total":1,"crc":"0005:15CB2833"}');
  });

  it("computes the CRC-32 of the JSON text", () => {
    expect(crc32Text('{"req":"hub.sync"}').toString(16).toUpperCase()).toBe("10BAC79A");
  });

  it("verifies either hex case and rejects a mismatch", () => {
    expect(checkRequestCrc('{"req":"hub.sync","crc":"0001:10bac79a"}')).toEqual({ kind: "ok", sequence: 1 });
    expect(checkRequestCrc('{"req":"hub.sync","crc":"0001:10BAC79A"}')).toEqual({ kind: "ok", sequence: 1 });
    expect(checkRequestCrc('{"req":"hub.sync","crc":"0001:10BAC79B"}')).toEqual({
      kind: "mismatch",
      sequence: 1,
    });
    expect(checkRequestCrc('{ "crc":"0001:A3A6BF43"}')).toEqual({ kind: "ok", sequence: 1 });
    expect(checkRequestCrc('{"req":"hub.sync"}')).toEqual({ kind: "none" });
    expect(checkRequestCrc('{"crc":"zz","req":"hub.sync"}')).toEqual({ kind: "malformed" });
  });

  it("matches zlib on any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        expect(crc32(bytes)).toBe(zlibCrc32(bytes));
      }),
    );
  });

  it("round-trips: a field appended to any JSON object verifies, a changed byte does not", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.integer({ min: 0, max: 0xffff }),
        fc.nat(),
        (obj, seq, at) => {
          const json = JSON.stringify(obj);
          const line = appendCrc(json, seq);
          expect(checkRequestCrc(line)).toEqual({ kind: "ok", sequence: seq });
          const { crc: _crc, ...rest } = JSON.parse(line) as Record<string, unknown>;
          expect(rest).toEqual(JSON.parse(json));
          // Change one character of the original JSON text: the CRC no longer matches.
          const i = at % (json.length - 1);
          const changed = json.slice(0, i) + (json[i] === "a" ? "b" : "a") + json.slice(i + 1);
          if (changed !== json) {
            expect(checkRequestCrc(changed.slice(0, -1) + line.slice(json.length - 1)).kind).toBe("mismatch");
          }
        },
      ),
    );
  });
});

describe("crc32Text", () => {
  it("is the CRC-32 of the UTF-8 bytes of any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        expect(crc32Text(text)).toBe(zlibCrc32(Buffer.from(text, "utf8")));
      }),
    );
  });
});
