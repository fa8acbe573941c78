import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

/** Every argument each request reads (reference Appendix A, plus fields hosts add). */
const ARGUMENTS: Record<string, string[]> = {
  "card.version": ["api"],
  "card.status": [],
  "card.time": ["time"],
  "card.restore": ["delete", "connected"],
  "card.restart": [],
  "card.voltage": [
    "mode",
    "name",
    "hours",
    "offset",
    "vmin",
    "vmax",
    "now",
    "on",
    "off",
    "usb",
    "alert",
    "sync",
    "set",
    "calibration",
  ],
  "card.random": ["mode", "count"],
  "card.contact": ["name", "org", "role", "email"],
  "card.io": ["i2c", "mode"],
  "hub.set": [
    "product",
    "sn",
    "host",
    "mode",
    "outbound",
    "inbound",
    "voutbound",
    "vinbound",
    "duration",
    "seconds",
    "align",
    "sync",
    "on",
    "off",
    "umin",
    "uoff",
    "uperiodic",
    "version",
    "details",
    "body",
  ],
  "hub.get": [],
  "hub.log": ["text", "alert", "sync"],
  "env.default": ["name", "text", "sync"],
  "env.set": ["name", "text"],
  "env.get": ["name", "names", "time"],
  "env.modified": ["time"],
  "env.template": ["body"],
};

/** Values near the edges of what each argument accepts, and everything else JSON can carry. */
const value = fc.oneof(
  fc.constantFrom(
    "-",
    "",
    "?",
    "lipo",
    "usb:4.6;normal:3.5;dead:0",
    "high:60",
    "periodic",
    "dfu",
    "dfu-completed",
    "payload",
    "+busy",
    "a@b",
    "__proto__",
    "constructor",
    "toString",
  ),
  fc.constantFrom(-1, 0, 1, 15, 720, 721, 0x17, 1e12, -0, 0.5, 2.5),
  fc.boolean(),
  fc.jsonValue({ maxDepth: 2 }),
);

describe("card, hub and env requests under arbitrary arguments", () => {
  it("always answer, never with an internal error, on every variant", async () => {
    const modules = await Promise.all(
      ["cell", "cell-wifi", "wifi", "lora", "ntn", "cell+xp"].map((variant) =>
        bootTestModule({ variant, timeKnown: variant === "wifi" }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(ARGUMENTS)),
        fc.nat(modules.length - 1),
        fc.dictionary(fc.constantFrom("x", "extra"), value, { maxKeys: 1 }),
        fc.array(fc.tuple(fc.nat(30), value), { maxLength: 4 }),
        async (req, which, extra, picks) => {
          const names = ARGUMENTS[req]!;
          const request: Record<string, unknown> = { req, ...extra };
          for (const [i, v] of picks) if (names.length > 0) request[names[i % names.length]!] = v;
          const t = modules[which]!;
          const reply = await t.module.request(request);
          expect(reply).toBeDefined();
          expect(String(reply!["err"] ?? "")).not.toMatch(/internal error/);
          expect(t.log.lines.filter((l) => l.level === "error")).toEqual([]);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
