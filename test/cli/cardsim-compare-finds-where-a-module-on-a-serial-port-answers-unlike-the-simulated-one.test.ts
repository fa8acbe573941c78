import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LineHandler } from "../../firmware/host/SerialSession.js";
import { PtyPair } from "../../hil/links/PtyPair.js";
import { SerialDeviceServer } from "../../hil/links/SerialDeviceServer.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SystemClock } from "../../runtime/SystemClock.js";
import { runCli } from "../support/cliProcess.js";

/*
 * A pty stands in for the real module (no hardware on CI machines): on its far end a cardsim
 * module of another seed answers, and where a test wants a real module that answers otherwise,
 * a few of its replies are rewritten. `cardsim compare` runs as a user runs it, on the near end.
 */

const STARTER = fileURLToPath(new URL("../../tools/compare/starter.jsonl", import.meta.url));
// The CLI starts through tsx, sends ~50 requests over real tty drivers and starts its own module.
const RUN_MS = 90_000;

/** How the stand-in's replies differ from a simulated module's. */
type Rewrite = (request: Record<string, unknown>, reply: Record<string, unknown>) => Record<string, unknown>;

async function standIn(path: string, rewrite: Rewrite | undefined) {
  const simulated = await SimulatedModule.boot({
    clock: new SystemClock(),
    seed: "another unit",
    variant: "NOTE-MBNAN",
    timeKnown: true,
  });
  const inner = simulated.lineHandler();
  const handler: LineHandler = {
    handleOverflow: (length) => inner.handleOverflow(length),
    async handleLine(line) {
      const text = await inner.handleLine(line);
      // Blank lines (a host's resync) and anything not a request pass unchanged.
      if (!rewrite || text === undefined || !text.startsWith("{") || line[0] !== 0x7b) return text;
      const request = JSON.parse(new TextDecoder().decode(line)) as Record<string, unknown>;
      return JSON.stringify(rewrite(request, JSON.parse(text) as Record<string, unknown>)) + "\r\n";
    },
  };
  const server = await SerialDeviceServer.start(handler, path, { clock: new SystemClock() });
  return {
    async close() {
      await server.close();
      await simulated.close();
    },
  };
}

describe.skipIf(!PtyPair.available())("cardsim compare against a module on a serial port (a pty)", () => {
  let dir: string;
  let pair: PtyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-compare-"));
    pair = await PtyPair.open(join(dir, "module"), join(dir, "host"));
  });

  afterAll(async () => {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "a module of the same SKU answers the whole starter script alike: exit status 0",
    async () => {
      const module = await standIn(pair.a, undefined);
      try {
        const run = await runCli(["compare", "--port", pair.b, "--script", STARTER], { timeoutMs: RUN_MS });
        expect(run.stderr).toBe("");
        expect(run.stdout).toMatch(/^comparing the module on .* with a simulated NOTE-MBNAN\n/);
        expect(run.stdout).toMatch(/\n47 requests: the replies have the same shape\n$/);
        expect(run.code).toBe(0);
      } finally {
        await module.close();
      }
    },
    RUN_MS,
  );

  it(
    "prints each difference of shape, type, error code and text, records the transcript and replays it",
    async () => {
      const module = await standIn(pair.a, (request, reply) => {
        if (request["req"] === "card.version") return { ...reply, api: 9 };
        if (request["req"] === "card.status") return { ...reply, usb: "yes" };
        if (request["req"] === "note.get" && typeof reply["err"] === "string")
          return { err: "note not found {note-noexist}" };
        if (request["req"] === "card.no-such-request") return { err: "unknown request {io}" };
        if (request["req"] === "hub.get") return { ...reply, mode: "dfu" };
        return reply;
      });
      const transcript = join(dir, "recorded.jsonl");
      try {
        const run = await runCli(["compare", "--port", pair.b, "--script", STARTER, "--record", transcript], {
          timeoutMs: RUN_MS,
        });
        expect(run.stderr).toBe("");
        const lines = run.stdout.trimEnd().split("\n");
        expect(lines.slice(1)).toEqual([
          '#1 (line 5) {"req":"card.version"}',
          "  api: only the real module has it (9)",
          '#2 (line 6) {"req":"card.status"}',
          "  usb: real is string, simulated is boolean",
          '#19 (line 23) {"req":"card.no-such-request"}',
          "  error code: real {io}, simulated {io} {not-supported}",
          expect.stringMatching(
            /^ {2}error text: real "unknown request \{io\}", simulated "unknown request: /,
          ),
          '#21 (line 25) {"req":"hub.get"}',
          expect.stringMatching(/^ {2}mode: real "dfu", simulated "[a-z]+"$/),
          '#30 (line 34) {"req":"note.get","file":"compare.dbx","note":"no-such-note"}',
          expect.stringMatching(
            /^ {2}error text: real "note not found \{note-noexist\}", simulated ".*\{note-noexist\}.*"$/,
          ),
          "47 requests: 42 the same, 5 differ",
        ]);
        expect(run.code).toBe(1);

        const recorded = readFileSync(transcript, "utf8").trimEnd().split("\n");
        expect(JSON.parse(recorded[0]!)).toMatchObject({
          format: "cardsim-compare-transcript",
          version: 1,
          sku: "NOTE-MBNAN",
          port: pair.b,
          module: { sku: "NOTE-MBNAN", api: 9 },
        });
        expect(recorded).toHaveLength(48);
        expect(JSON.parse(recorded[20]!)).toMatchObject({ request: { cmd: "card.version" } });
        expect(JSON.parse(recorded[20]!)).not.toHaveProperty("reply");

        // Later, without the module: the same comparison from the transcript.
        const replay = await runCli(["compare", "--transcript", transcript], { timeoutMs: RUN_MS });
        expect(replay.stdout.trimEnd().split("\n").slice(1)).toEqual(
          lines.slice(1).map((l) => (typeof l === "string" ? l.replace(/ \(line \d+\)/, "") : l)),
        );
        expect(replay.code).toBe(1);

        // A rules file: errors by their tags alone, hub.get's mode masked, card.version's api ignored.
        const rules = join(dir, "rules.json");
        writeFileSync(rules, JSON.stringify({ mask: ["err", "hub.get:mode"], ignore: ["card.version:api"] }));
        const masked = await runCli(["compare", "--transcript", transcript, "--rules", rules], {
          timeoutMs: RUN_MS,
        });
        expect(masked.stdout.trimEnd().split("\n").slice(1)).toEqual([
          '#2 {"req":"card.status"}',
          "  usb: real is string, simulated is boolean",
          '#19 {"req":"card.no-such-request"}',
          "  error code: real {io}, simulated {io} {not-supported}",
          "47 requests: 45 the same, 2 differ",
        ]);
        expect(masked.code).toBe(1);
      } finally {
        await module.close();
      }
    },
    2 * RUN_MS,
  );
});

describe.runIf(!PtyPair.available())("cardsim compare on a pty without socat", () => {
  it("is skipped: socat is not installed (CI installs it; apt-get install socat)", () => {
    expect(PtyPair.available()).toBe(false);
  });
});
