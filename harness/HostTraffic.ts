import { isDeepStrictEqual } from "node:util";
import type { Clock } from "../core/Clock.js";
import { checkRequestCrc } from "../firmware/host/RequestCrc.js";
import type { LineHandler } from "../firmware/host/SerialSession.js";
import { isBinaryPut } from "../hil/links/isBinaryPut.js";
import { lineReplies } from "../hil/links/lineReplies.js";
import { isJsonObject, type JsonObject } from "../core/json.js";

/**
 * What a host line was: a request (`req`, expects a reply), a command (`cmd`, none), a blank line
 * (a resync), binary data (after an accepted `card.binary.put`), a line too long for the module,
 * or something the module could not read as a request (garbage, damaged JSON).
 */
export type HostLineKind = "request" | "command" | "blank" | "binary" | "oversize" | "invalid";

/** One line a host sent, as the module received it, with the module's answer. */
export interface HostLine {
  /** 0, 1, 2... in arrival order over all links. */
  readonly index: number;
  /** When the module had the whole line (ms since the scenario started). */
  readonly t: number;
  readonly link: string;
  readonly kind: HostLineKind;
  /** The line as text (binary data as latin1), without its newline. */
  readonly text: string;
  /** The request or command object, without its `crc` field. */
  readonly request?: JsonObject;
  /** The sequence number of the request's CRC field, when it had one. */
  readonly crcSequence?: number;
  /** Whether that CRC matched the request (false: the line was damaged on its way). */
  readonly crcOk?: boolean;
  /** The module's reply (without `\r\n`), once sent; undefined for commands and binary. */
  reply?: string;
  /** The reply as an object (without `crc`), when it was JSON. */
  replyJson?: JsonObject;
  repliedAt?: number;
  /** Bytes the module sent right after the reply (the COBS data after `card.binary.get`). */
  replyAfter?: Uint8Array;
  /** Resolves when the module has answered (or decided not to). */
  readonly answered: Promise<void>;
}

/**
 * Which host lines an expectation or an ignore rule means, the same shape for both: a function of
 * the request (the object without its `crc` field; `{}` for a line that is not a request or
 * command) and the whole line, or an object of fields the request must have (each equal, deeply).
 */
export type HostLineMatch = ((request: JsonObject, line: HostLine) => boolean) | JsonObject;

/** The predicate a HostLineMatch stands for. */
export function hostLineMatcher(match: HostLineMatch): (request: JsonObject, line: HostLine) => boolean {
  if (typeof match === "function") return match;
  const fields = Object.entries(match);
  return (request) => fields.every(([key, value]) => isDeepStrictEqual(request[key], value));
}

/** A call of an emulated host in progress: the lines it sent count as expected once it ends. */
export interface HostCall {
  /** The host sent this text (a request line without its newline). */
  sent(text: string): void;
  end(): void;
}

interface Waiter {
  readonly predicate: (line: HostLine) => boolean;
  readonly resolve: (line: HostLine) => void;
}

const decoder = new TextDecoder();
const latin1 = new TextDecoder("latin1");

function describe(line: HostLine): string {
  const text = line.text.length > 120 ? `${line.text.slice(0, 120)}...` : line.text;
  return `#${line.index} at ${line.t} ms on ${line.link} (${line.kind}): ${text}`;
}

/**
 * Watches every line hosts send to a module and what it answers, so scenarios can expect host
 * requests and find what nobody expected. Also the one place where scripted world changes are
 * put between two host lines, never in the middle of a request.
 */
export class HostTraffic {
  readonly #clock: Clock;
  readonly #start: number;
  readonly #lines: HostLine[] = [];
  readonly #consumed = new Set<number>();
  readonly #waiters: Waiter[] = [];
  readonly #ignored: ((line: HostLine) => boolean)[] = [];
  /** Lines of the emulated host's calls: expected, yet still there for an expectation to take. */
  readonly #ofCalls = new Set<number>();
  readonly #openCalls: { link: string; lines: number[] }[] = [];
  /** Texts an ended call sent that had not arrived yet (a command still on the wire). */
  readonly #late: { link: string; text: string }[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#start = clock.now();
  }

  /** Every line so far, in order. */
  get lines(): readonly HostLine[] {
    return this.#lines;
  }

  /** Wraps a module so that what it receives on `link` is observed. */
  wrap(handler: LineHandler, link: string): LineHandler {
    let binaryNext = false;
    const reply = lineReplies(handler);
    const handle = (bytes: Uint8Array) =>
      this.exclusive(async () => {
        const kind = binaryNext ? "binary" : undefined;
        binaryNext = false;
        const line = this.#record(link, bytes, kind);
        const answer = await reply(bytes);
        this.#answer(line.entry, answer?.text, answer?.after);
        if (
          line.entry.kind === "request" &&
          isBinaryPut(bytes) &&
          answer !== undefined &&
          !answer.text.includes('"err"')
        ) {
          binaryNext = true;
        }
        line.done();
        return answer;
      });
    return {
      handleLine: async (bytes) => (await handle(bytes))?.text,
      handleLineReply: handle,
      handleOverflow: (length) =>
        this.exclusive(async () => {
          const wasBinary = binaryNext;
          binaryNext = false;
          const line = this.#add(
            link,
            wasBinary ? "binary" : "oversize",
            `<${length} bytes: longer than the module holds>`,
          );
          const answer = await handler.handleOverflow(length);
          this.#answer(line.entry, answer);
          line.done();
          return answer;
        }),
    };
  }

  /** Runs `task` between two host lines (a scripted change of the module's world). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The first unconsumed request or command matching `predicate` (now or later), consumed.
   * `cancel` withdraws the wait (it timed out), so that it does not take a later line.
   */
  waitFor(match: HostLineMatch): {
    line: Promise<HostLine>;
    cancel: () => void;
  } {
    const predicate = hostLineMatcher(match);
    const test = (line: HostLine) =>
      (line.kind === "request" || line.kind === "command") && predicate(line.request!, line);
    for (const line of this.#lines) {
      if (!this.#consumed.has(line.index) && test(line)) {
        this.#consumed.add(line.index);
        return { line: Promise.resolve(line), cancel: () => undefined };
      }
    }
    let waiter!: Waiter;
    const promise = new Promise<HostLine>((resolve) => {
      waiter = { predicate: test, resolve };
      this.#waiters.push(waiter);
    });
    return {
      line: promise,
      cancel: () => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
      },
    };
  }

  /** Marks matching lines (now and later, of any kind) as expected without waiting for them. */
  ignore(match: HostLineMatch): void {
    const matches = hostLineMatcher(match);
    const predicate = (line: HostLine) => matches(line.request ?? {}, line);
    this.#ignored.push(predicate);
    for (const line of this.#lines) if (predicate(line)) this.#consumed.add(line.index);
  }

  /**
   * A call of the emulated host on `link` begins (the test asked the host for it): the lines that
   * arrive while it runs, and the texts it sent that arrive after it ended, are expected.
   */
  call(link: string): HostCall {
    const open = { link, lines: [] as number[] };
    const sent: string[] = [];
    this.#openCalls.push(open);
    return {
      sent: (text) => void sent.push(text),
      end: () => {
        const i = this.#openCalls.indexOf(open);
        if (i < 0) return;
        this.#openCalls.splice(i, 1);
        for (const index of open.lines) this.#ofCalls.add(index);
        const arrived = open.lines.map((index) => this.#lines[index]!.text);
        for (const text of sent) {
          const j = arrived.indexOf(text);
          if (j >= 0) arrived.splice(j, 1);
          else this.#late.push({ link, text });
        }
      },
    };
  }

  /** Lines no expectation or ignore rule took (the emulated host's own among them). */
  unconsumed(): HostLine[] {
    return this.#lines.filter((l) => !this.#consumed.has(l.index));
  }

  /** Lines no expectation, ignore rule or call of the emulated host accounted for: what fails `finish`. */
  unexpected(): HostLine[] {
    return this.unconsumed().filter((l) => !this.#ofCalls.has(l.index));
  }

  /** One line per unexpected host line, for failure messages. */
  describeUnexpected(): string[] {
    return this.unexpected().map(describe);
  }

  #record(link: string, bytes: Uint8Array, forced: HostLineKind | undefined) {
    if (forced === "binary") return this.#add(link, "binary", latin1.decode(bytes));
    const text = decoder.decode(bytes).trim();
    if (text === "") return this.#add(link, "blank", "");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.#add(link, "invalid", text);
    }
    if (!isJsonObject(parsed)) return this.#add(link, "invalid", text);
    const crc = checkRequestCrc(text);
    const request = { ...parsed };
    delete request["crc"];
    const kind: HostLineKind =
      parsed["req"] !== undefined ? "request" : parsed["cmd"] !== undefined ? "command" : "invalid";
    const sequence = crc.kind === "ok" || crc.kind === "mismatch" ? crc.sequence : undefined;
    return this.#add(
      link,
      kind,
      text,
      request,
      sequence,
      sequence === undefined ? undefined : crc.kind === "ok",
    );
  }

  #add(
    link: string,
    kind: HostLineKind,
    text: string,
    request?: JsonObject,
    crcSequence?: number,
    crcOk?: boolean,
  ) {
    let done!: () => void;
    const answered = new Promise<void>((resolve) => (done = resolve));
    const entry: HostLine = {
      index: this.#lines.length,
      t: this.#clock.now() - this.#start,
      link,
      kind,
      text,
      ...(request ? { request } : {}),
      ...(crcSequence !== undefined ? { crcSequence, crcOk } : {}),
      answered,
    };
    this.#lines.push(entry);
    for (const call of this.#openCalls) if (call.link === link) call.lines.push(entry.index);
    const late = this.#late.findIndex((l) => l.link === link && l.text === text);
    if (late >= 0) {
      this.#late.splice(late, 1);
      this.#ofCalls.add(entry.index);
    }
    // Resync newlines and binary data are part of the protocol, not requests to expect.
    if (kind === "blank" || kind === "binary") this.#consumed.add(entry.index);
    else if (this.#ignored.some((p) => p(entry))) this.#consumed.add(entry.index);
    else {
      const i = this.#waiters.findIndex((w) => w.predicate(entry));
      if (i >= 0) {
        const [waiter] = this.#waiters.splice(i, 1);
        this.#consumed.add(entry.index);
        waiter!.resolve(entry);
      }
    }
    return { entry, done };
  }

  #answer(line: HostLine, reply: string | undefined, after?: Uint8Array): void {
    if (after) line.replyAfter = after;
    if (reply === undefined) return;
    line.reply = reply.replace(/\r?\n$/, "");
    line.repliedAt = this.#clock.now() - this.#start;
    try {
      const parsed: unknown = JSON.parse(line.reply);
      if (isJsonObject(parsed)) {
        const json = { ...parsed };
        delete json["crc"];
        line.replyJson = json;
      }
    } catch {
      // A blank-line answer or text: no JSON to keep.
    }
  }
}
