import { encodeBase64 } from "../../../../core/base64.js";
import { publicKeyToPem, type KeyPair } from "../../../../core/Crypto.js";
import type { JsonObject } from "../../../../core/json.js";
import { SeededCrypto } from "../../../../core/SeededCrypto.js";
import { SeededRandom } from "../../../../core/SeededRandom.js";
import {
  signedText,
  type OpenReply,
  type ProtocolReply,
  type SessionContext,
  type SessionTrigger,
} from "../../../../protocol/messages.js";
import { DEVICE_ENDPOINT, type NoteRecord } from "../../../../protocol/NoteRecord.js";
import { PROTOCOL_VERSION } from "../../../../protocol/version.js";

/** Sends one protocol message to the hub and returns its reply (in process, or over HTTP). */
export type SendMessage = (message: unknown) => Promise<ProtocolReply>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyReply = ProtocolReply & Record<string, any>;

/** A module's session context as the module sends it, with the fields a test changes. */
export function sessionContext(fields: Partial<SessionContext> = {}): SessionContext {
  return {
    firmware: { org: "cardsim", product: "Module", version: "notecard-8.1.3", ver_major: 8, ver_minor: 1 },
    sku: "NOTE-WBGLW",
    voltage: 4.2,
    usb: true,
    temp: 21.5,
    radio: { rat: "lte", bearer: "LTE Cat-1", rssi: -70, rsrp: -95, rsrq: -10, sinr: 12, bars: 3 },
    ...fields,
  };
}

/** A note as the module sends it (the device's version unless the test says otherwise). */
export function deviceNote(id: string, fields: Partial<NoteRecord> = {}): NoteRecord {
  return {
    id,
    body: { id },
    when: 1_767_225_600,
    updates: 0,
    endpoint: DEVICE_ENDPOINT,
    change: 1,
    ...fields,
  };
}

/**
 * A hand-written module that speaks the sync protocol step by step (no firmware/ code): its own
 * Ed25519 key from a seed, the tracker session the hub gave it, the token of its open session.
 * Each step returns the hub's reply as it came, errors included.
 */
export class ScriptedModule {
  tracker = "";
  token = "";
  /** The session ticket of the last open that gave one (resumption). */
  ticket = "";
  readonly crypto: SeededCrypto;

  private constructor(
    private readonly send: SendMessage,
    readonly device: string,
    readonly product: string,
    readonly key: KeyPair,
    crypto: SeededCrypto,
  ) {
    this.crypto = crypto;
  }

  static async create(
    send: SendMessage,
    options: { device: string; product: string; seed?: number },
  ): Promise<ScriptedModule> {
    const crypto = new SeededCrypto(new SeededRandom(options.seed ?? options.device));
    return new ScriptedModule(send, options.device, options.product, await crypto.generateKeyPair(), crypto);
  }

  get publicKeyPem(): string {
    return publicKeyToPem(this.key.publicKey);
  }

  request(message: JsonObject): Promise<AnyReply> {
    return this.send({ v: PROTOCOL_VERSION, ...message }) as Promise<AnyReply>;
  }

  hello(): Promise<AnyReply> {
    return this.request({ type: "hello", device: this.device, product: this.product });
  }

  /**
   * hello then open, signing with the module's key (or `signWith`); the key is sent when the hub
   * says it holds none (or when `sendKey` says). With `challenge`, no hello: that challenge is
   * signed. Keeps the token and tracker of a successful open.
   */
  async open(
    options: {
      why?: SessionTrigger;
      context?: Partial<SessionContext>;
      signWith?: KeyPair;
      sendKey?: string | false;
      tamper?: boolean;
      challenge?: string;
    } = {},
  ): Promise<AnyReply> {
    // A test's own challenge is sent without saying hello first (as if the module had kept it).
    const hello = options.challenge ? { known: true, challenge: options.challenge } : await this.hello();
    if ("err" in hello && hello.err) return hello;
    const challenge = hello.challenge as string;
    const signer = options.signWith ?? this.key;
    const signature = await this.crypto.sign(
      signer.privateKey,
      new TextEncoder().encode(signedText(this.device, this.product, challenge)),
    );
    if (options.tamper) signature[0] = signature[0]! ^ 0xff;
    const key =
      options.sendKey === false
        ? undefined
        : (options.sendKey ?? (hello.known ? undefined : publicKeyToPem(signer.publicKey)));
    const reply = (await this.request({
      type: "open",
      device: this.device,
      product: this.product,
      challenge,
      signature: encodeBase64(signature),
      ...(key ? { key } : {}),
      why: options.why ?? "explicit",
      tracker: this.tracker,
      context: sessionContext(options.context),
    })) as AnyReply & Partial<OpenReply>;
    if (!reply.err) {
      this.token = reply.token!;
      this.tracker = reply.tracker!;
      if (reply.ticket) this.ticket = reply.ticket;
    }
    return reply;
  }

  /** An open resumed with a session ticket (this module's, or `ticket`): no hello, no signature. */
  async resume(options: { ticket?: string; why?: SessionTrigger } = {}): Promise<AnyReply> {
    const reply = (await this.request({
      type: "open",
      device: this.device,
      product: this.product,
      ticket: options.ticket ?? this.ticket,
      why: options.why ?? "explicit",
      tracker: this.tracker,
      context: sessionContext(),
    })) as AnyReply & Partial<OpenReply>;
    if (!reply.err) {
      this.token = reply.token!;
      this.tracker = reply.tracker!;
    }
    return reply;
  }

  push(file: string, notes: NoteRecord[], range?: { after: number; through: number }): Promise<AnyReply> {
    const through = range?.through ?? Math.max(0, ...notes.map((n) => n.change));
    return this.request({ type: "push", token: this.token, file, after: range?.after ?? 0, through, notes });
  }

  pull(file: string, max?: number): Promise<AnyReply> {
    return this.request({ type: "pull", token: this.token, file, ...(max ? { max } : {}) });
  }

  ack(file: string, after: number, through: number): Promise<AnyReply> {
    return this.request({ type: "ack", token: this.token, file, after, through });
  }

  /** pull then ack each batch until the hub has no more; returns every note received. */
  async pullAll(file: string): Promise<NoteRecord[]> {
    const notes: NoteRecord[] = [];
    for (;;) {
      const batch = await this.pull(file);
      if (batch.err) throw new Error(batch.err);
      notes.push(...(batch.notes as NoteRecord[]));
      const ack = await this.ack(file, batch.after, batch.through);
      if (ack.err) throw new Error(ack.err);
      if (!batch.more) return notes;
    }
  }

  signals(after: number, wait?: number): Promise<AnyReply> {
    return this.request({
      type: "signals",
      token: this.token,
      after,
      ...(wait !== undefined ? { wait } : {}),
    });
  }

  close(why = "sync complete", usage?: JsonObject): Promise<AnyReply> {
    return this.request({ type: "close", token: this.token, why, ...(usage ? { usage } : {}) });
  }
}
