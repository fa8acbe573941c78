import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryLog } from "../../../firmware/ModuleLog.js";
import { dfuRig, hostImage } from "./support/dfuRig.js";
import { shapeProblems } from "./support/dfuShapes.js";

const ARGUMENTS: Record<string, string[]> = {
  "dfu.status": ["name", "on", "off", "stop", "status", "err", "version", "vvalue"],
  "dfu.get": ["length", "offset", "binary"],
  "card.dfu": ["name", "on", "off", "seconds", "stop", "start", "mode"],
  "hub.set": ["mode"],
};

const value = fc.oneof(
  fc.constantFrom("user", "card", "stm32", "esp32", "-", "", "dfu", "dfu-completed", "usb:1;low:0", "altdfu"),
  fc.constantFrom(-1, 0, 1, 4096, 8191, 8192, 130_554, 130_555, 1e12, 0.5),
  fc.boolean(),
  fc.jsonValue({ maxDepth: 2 }),
);

describe("dfu requests under arbitrary arguments", () => {
  it("always answer with a reply of the schema's shape or an error, never an internal one, in any state", async () => {
    const rigs = await Promise.all(
      (["cell", "ntn", "lora"] as const).map(async (variant) => {
        const t = await dfuRig({ variant });
        t.hub.offer("user", "app$20260101000000.bin", hostImage(8192));
        await t.sync();
        return t;
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(ARGUMENTS)),
        fc.nat(rigs.length - 1),
        fc.array(fc.tuple(fc.nat(30), value), { maxLength: 4 }),
        async (req, which, picks) => {
          const names = ARGUMENTS[req]!;
          const request: Record<string, unknown> = { req };
          for (const [i, v] of picks) request[names[i % names.length]!] = v;
          const t = rigs[which]!;
          const reply = (await t.sim.module.request(request))!;
          expect(reply).toBeDefined();
          expect(String(reply["err"] ?? "")).not.toMatch(/internal error/);
          if (reply["err"] === undefined && req !== "hub.set") expect(shapeProblems(req, reply)).toEqual([]);
          expect((t.sim.log as MemoryLog).lines.filter((l) => l.level === "error")).toEqual([]);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
