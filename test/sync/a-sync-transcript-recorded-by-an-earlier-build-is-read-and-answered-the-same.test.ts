import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64 } from "../../core/base64.js";
import type { JsonObject } from "../../core/json.js";
import { SeededCrypto } from "../../core/SeededCrypto.js";
import { SeededRandom } from "../../core/SeededRandom.js";
import { readMessage } from "../../protocol/readMessage.js";
import { signedText, type ProtocolReply, type ProtocolRequest } from "../../protocol/messages.js";
import { readReply } from "../../protocol/readReply.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { TestServices } from "../hub/support/servicesFixture.js";

/**
 * The sync transcripts under test/fixtures/sync/ were recorded once by an earlier build
 * (test/fixtures/make-fixtures.ts): every message between a module and the hub in two sessions.
 * Modules in the field keep speaking what they were built with, and hubs keep answering what
 * modules were built to read, so each transcript is checked from both ends.
 *
 * The transcripts named here are the current protocol's: a fresh hub must answer the recorded
 * module messages with exactly the recorded replies. A deliberate protocol change that alters a
 * reply records a new transcript in a folder of its own (make-fixtures.ts `sync --as <folder>`),
 * names it here instead of the old one, and the old one keeps being checked below: its messages
 * still read and accepted, and its replies still carrying what its module reads.
 */
const ANSWERED_AS_RECORDED = ["v1-time-ordered-sessions/two-sessions.jsonl"];

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "sync");

interface Transcript {
  readonly name: string;
  readonly header: {
    readonly protocol: number;
    readonly clockStart: number;
    readonly hubSeed: number;
    readonly moduleSeed: string;
    readonly product: string;
    readonly device: string;
    readonly privateKey: string;
  };
  readonly lines: readonly TranscriptLine[];
}

type TranscriptLine =
  | { readonly t: number; readonly dir: "m2h" | "h2m"; readonly message: JsonObject }
  | { readonly t: number; readonly dir: "hub"; readonly action: JsonObject }
  | { readonly t: number; readonly dir: "host"; readonly request: JsonObject; readonly reply: JsonObject };

function transcripts(): Transcript[] {
  const found: Transcript[] = [];
  for (const folder of readdirSync(FIXTURES).sort()) {
    for (const file of readdirSync(join(FIXTURES, folder)).sort()) {
      if (!file.endsWith(".jsonl")) continue;
      const [header, ...lines] = readFileSync(join(FIXTURES, folder, file), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as JsonObject);
      if (header?.["fixture"] !== "cardsim sync transcript")
        throw new Error(`${folder}/${file}: line 1 is not the header of a cardsim sync transcript`);
      found.push({
        name: `${folder}/${file}`,
        header: header as unknown as Transcript["header"],
        lines: lines as unknown as TranscriptLine[],
      });
    }
  }
  return found;
}

/** Each module message with the hub's reply to it. */
function exchanges(transcript: Transcript): { request: JsonObject; reply: JsonObject; t: number }[] {
  const out: { request: JsonObject; reply: JsonObject; t: number }[] = [];
  const lines = transcript.lines;
  lines.forEach((line, i) => {
    if (line.dir !== "m2h") return;
    const next = lines[i + 1];
    if (next?.dir !== "h2m") throw new Error(`${transcript.name} line ${i + 2}: a request without its reply`);
    out.push({ request: line.message, reply: next.message, t: line.t });
  });
  return out;
}

/**
 * What the module would not read, or would take as a refusal, in `reply` as the answer to
 * `request`: the module's own reader (protocol/readReply.ts) decides; none when it reads.
 */
function unreadable(request: JsonObject, reply: JsonObject): string[] {
  try {
    const read = readReply(request as unknown as ProtocolRequest, reply);
    return read.err !== undefined
      ? [`${String(request["type"])}: an error, ${JSON.stringify(read.err)}`]
      : [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/**
 * Sends the module's side of a transcript to a fresh hub (the recorded seed and clock), doing on
 * the hub what the recording did between sessions; returns each request with the replay's reply.
 */
async function replayToAFreshHub(transcript: Transcript) {
  const { header } = transcript;
  const clock = new FakeClock(header.clockStart);
  const hub = await TestServices.start({ seed: header.hubSeed, clock });
  const crypto = new SeededCrypto(new SeededRandom(1));
  const replies: { request: JsonObject; reply: ProtocolReply; recorded: JsonObject | undefined }[] = [];
  let challenge: unknown;
  /** Recorded session token -> this hub's (they are the same unless the hub draws its ids otherwise). */
  const tokens = new Map<unknown, unknown>();
  /** Recorded session ticket -> this hub's (sealed with a key of each hub start, as challenges are). */
  const tickets = new Map<unknown, unknown>();
  try {
    for (const [i, line] of transcript.lines.entries()) {
      const due = header.clockStart + line.t;
      if (due > clock.now()) await clock.advance(due - clock.now());
      if (line.dir === "hub") {
        const device = await hub.store.devices.getDevice(header.device);
        if (!device) throw new Error(`${transcript.name}: the hub has no ${header.device}`);
        const { action } = line;
        expect(action["action"]).toBe("note.add");
        await hub.services.notes.add(
          device,
          String(action["file"]),
          typeof action["note"] === "string" ? action["note"] : null,
          { body: action["body"] as JsonObject, payload: null },
        );
      }
      if (line.dir !== "m2h") continue;
      let request = line.message;
      if (tokens.has(request["token"]))
        request = { ...request, token: tokens.get(request["token"]) as string };
      if (tickets.has(request["ticket"]))
        request = { ...request, ticket: tickets.get(request["ticket"]) as string };
      // Were this hub's challenge (or token) another than the recorded one, the module would
      // sign (or send) that one.
      if (request["type"] === "open" && "challenge" in request && request["challenge"] !== challenge) {
        const text = signedText(header.device, header.product, String(challenge));
        const signature = await crypto.sign(decodeBase64(header.privateKey)!, new TextEncoder().encode(text));
        request = { ...request, challenge: String(challenge), signature: encodeBase64(signature) };
      }
      const sent = JSON.stringify(request);
      const reply = JSON.parse(
        JSON.stringify(
          await hub.services.sync.handle(JSON.parse(sent), { secure: true, bytes: Buffer.byteLength(sent) }),
        ),
      ) as ProtocolReply;
      if (request["type"] === "hello") challenge = reply["challenge"];
      const next = transcript.lines[i + 1];
      if (request["type"] === "open" && next?.dir === "h2m") {
        tokens.set(next.message["token"], reply["token"]);
        if (next.message["ticket"] !== undefined) tickets.set(next.message["ticket"], reply["ticket"]);
      }
      replies.push({ request, reply, recorded: next?.dir === "h2m" ? next.message : undefined });
    }
  } finally {
    await hub.close();
  }
  expect(hub.listenerErrors).toEqual([]);
  return replies;
}

/**
 * Boots a module of the recorded seed against a scripted hub that answers with the recorded
 * replies (each request with the next recorded reply to a request of its type and notefile), and
 * makes the recorded host requests: the module must read the old hub's replies and end up with
 * what the hub sent it.
 */
async function replayToAModule(transcript: Transcript) {
  const { header } = transcript;
  const clock = new FakeClock(header.clockStart);
  const pending = exchanges(transcript);
  const unmatched: JsonObject[] = [];
  const sameKind = (a: JsonObject, b: JsonObject) =>
    a["type"] === b["type"] && (a["file"] ?? null) === (b["file"] ?? null);
  const sim = await SimulatedModule.boot({
    clock,
    seed: header.moduleSeed,
    timeKnown: true,
    hub: {
      product: header.product,
      inProcess: {
        async handle(request): Promise<ProtocolReply> {
          const message = request as JsonObject;
          const at = pending.findIndex((e) => sameKind(e.request, message));
          if (at < 0) {
            unmatched.push(message);
            return { v: 1, err: "hub-error" };
          }
          const [matched] = pending.splice(at, 1);
          return matched!.reply as ProtocolReply;
        },
      },
    },
  });
  const hostReplies: { request: JsonObject; reply: JsonObject | undefined }[] = [];
  try {
    for (const line of transcript.lines) {
      if (line.dir !== "host") continue;
      const due = header.clockStart + line.t;
      if (due > clock.now()) await clock.advance(due - clock.now());
      hostReplies.push({ request: line.request, reply: await sim.module.request(line.request) });
      if (line.request["req"] === "hub.sync") await sim.module.sync.idle();
    }
    expect(sim.module.deviceUid).toBe(header.device);
  } finally {
    await sim.close();
  }
  return { hostReplies, unmatched, unused: pending };
}

const all = transcripts();

describe("sync transcripts recorded by an earlier build", () => {
  it("are all here, the current ones included", () => {
    expect(all.map((t) => t.name)).toEqual(expect.arrayContaining(ANSWERED_AS_RECORDED));
    // What the v1 transcript holds, written out: two sessions, hub changes between them.
    const v1 = all.find((t) => t.name === "v1/two-sessions.jsonl")!;
    expect(exchanges(v1).map((e) => [e.request["type"], e.request["file"] ?? null])).toEqual([
      ["hello", null],
      ["open", null],
      ["push", "data.qo"],
      ["push", "config.db"],
      ["firmware", null],
      ["close", null],
      ["hello", null],
      ["open", null],
      ["push", "data.qo"],
      ["pull", "commands.qi"],
      ["ack", "commands.qi"],
      ["pull", "config.db"],
      ["ack", "config.db"],
      ["firmware", null],
      ["close", null],
    ]);
  });

  describe.each(all.map((t) => [t.name, t] as const))("%s", (_name, transcript) => {
    it("every module message still reads as the message it was", () => {
      for (const { request } of exchanges(transcript)) {
        const read = readMessage(request);
        expect(read.type).toBe(request["type"]);
        expect(read).toMatchObject({ v: request["v"] });
      }
    });

    it("every recorded hub reply carries what the module reads, with the types it reads", () => {
      for (const { request, reply } of exchanges(transcript)) expect(unreadable(request, reply)).toEqual([]);
    });

    it("a fresh hub accepts every module message, and answers with what the module reads", async () => {
      const replies = await replayToAFreshHub(transcript);
      expect(replies).toHaveLength(exchanges(transcript).length);
      for (const { request, reply } of replies) expect(unreadable(request, reply)).toEqual([]);
      if (ANSWERED_AS_RECORDED.includes(transcript.name)) {
        // The current protocol: the very replies of the recording (fake clock, seeded hub), but
        // for a hello's challenge and an open's session ticket: they are sealed with secret keys
        // made at each hub start, so they can never repeat (docs/sync-protocol.md), and only their
        // presence is compared.
        const sealed = (reply: Record<string, unknown> | undefined) => {
          if (typeof reply?.["challenge"] === "string") return { ...reply, challenge: "(sealed)" };
          if (typeof reply?.["ticket"] === "string") return { ...reply, ticket: "(sealed)" };
          return reply;
        };
        expect(replies.map((r) => sealed(r.reply))).toEqual(replies.map((r) => sealed(r.recorded)));
      }
    });

    it("a module reads the recorded replies and takes in what the hub sent it", async () => {
      const { hostReplies, unmatched, unused } = await replayToAModule(transcript);
      expect(unmatched).toEqual([]);
      expect(unused).toEqual([]);
      // The host got what it got in the recording (the notes pulled from the hub among them).
      const recorded = transcript.lines.filter((l) => l.dir === "host").map((l) => l.reply);
      expect(hostReplies.map((r) => r.reply)).toEqual(recorded);
    });
  });

  it("the session-ticket transcript's second session resumes: no hello, no signature", () => {
    const tickets = all.find((t) => t.name === "v1-session-tickets/two-sessions.jsonl")!;
    const steps = exchanges(tickets);
    expect(steps.map((e) => e.request["type"])).toEqual([
      ...["hello", "open", "push", "push", "firmware", "close"],
      ...["open", "push", "pull", "ack", "pull", "ack", "firmware", "close"],
    ]);
    const [first, second] = steps.filter((e) => e.request["type"] === "open");
    expect(first!.reply["ticket"]).toEqual(expect.any(String));
    expect(second!.request["ticket"]).toBe(first!.reply["ticket"]);
    expect(second!.request).not.toHaveProperty("signature");
    expect(second!.reply).not.toHaveProperty("ticket");
  });

  it("the v1 transcript's module ends up with the hub's command and setting", async () => {
    const v1 = all.find((t) => t.name === "v1/two-sessions.jsonl")!;
    const { hostReplies } = await replayToAModule(v1);
    expect(hostReplies.slice(-2)).toEqual([
      {
        request: { req: "note.get", file: "commands.qi", delete: true },
        reply: { body: { cmd: "reboot" }, time: Date.UTC(2026, 0, 1) / 1000 + 62 },
      },
      {
        request: { req: "note.get", file: "config.db", note: "limit" },
        reply: { body: { limit: 40 }, time: Date.UTC(2026, 0, 1) / 1000 + 62 },
      },
    ]);
  });
});
