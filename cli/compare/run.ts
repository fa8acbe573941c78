import type { JsonObject } from "../../core/json.js";
import type { HostLineClient } from "../../hil/HostLineClient.js";
import { resolveVariant } from "../../firmware/Variant.js";
import { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SystemClock } from "../../runtime/SystemClock.js";
import { CliError } from "../CliError.js";
import type { RuleSet } from "./rules.js";
import { isCommand, requestName, type TranscriptEntry } from "./script.js";
import { compareReplies, type Difference } from "./shape.js";

/*
 * The two ends of a comparison: the real module on a serial port (or as a transcript recorded
 * from one), and a simulated module of the same SKU started in this process on the real clock,
 * its time known as a module that has synced once knows it.
 */

/** One request and what each side answered. */
export interface Exchange {
  readonly index: number;
  readonly request: JsonObject;
  /** The real module's reply (undefined for a `cmd`, null for none). */
  readonly real: JsonObject | null | undefined;
  readonly realError?: string;
  readonly sim: JsonObject | null | undefined;
  readonly simError?: string;
  readonly differences: readonly Difference[];
}

/** A reply line as an object, or why it is not one. */
function parseReply(text: string | undefined): { reply: JsonObject | null | undefined; error?: string } {
  if (text === undefined) return { reply: undefined };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return { reply: value as JsonObject };
  } catch {
    // Reported below as a reply that is not a JSON object.
  }
  return { reply: null, error: `the reply is not a JSON object: ${text.slice(0, 80)}` };
}

/** The real module on a serial device (`DEV[@BAUD]`), as `cardsim req --serial` reaches it. */
export class SerialModule {
  private constructor(
    private readonly client: HostLineClient,
    private readonly timeoutMs: number,
  ) {}

  static async open(port: string, timeoutMs: number): Promise<SerialModule> {
    const { HostLineClient: Client } = await import("../../hil/HostLineClient.js");
    const client = await Client.serial(port).catch((error: unknown) => {
      throw new CliError(`${(error as Error).message}: check --port DEV[@BAUD]`);
    });
    return new SerialModule(client, timeoutMs);
  }

  /** Sends one request; what the transcript keeps of the exchange. */
  async send(request: JsonObject): Promise<TranscriptEntry> {
    try {
      const text = await this.client.transaction(JSON.stringify(request), { timeoutMs: this.timeoutMs });
      const { reply, error } = parseReply(text);
      return { request, ...(reply !== undefined ? { reply } : {}), ...(error ? { error } : {}) };
    } catch (error) {
      // A late reply must not be taken for the next request's: drain the line first.
      await this.client.resync().catch(() => false);
      return { request, reply: null, error: (error as Error).message };
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The SKU a real module reported in its `card.version` reply, checked against what cardsim builds. */
export function skuOf(versionReply: JsonObject | null | undefined, port: string): string {
  const sku = versionReply?.["sku"];
  if (typeof sku !== "string") {
    throw new CliError(
      `no card.version reply with a "sku" from ${port}: is a module on the other end (check the baud rate, DEV@BAUD), or pass --sku`,
    );
  }
  return sku;
}

/** A simulated module of `sku`, answering lines as it would on a host link. */
export class SimulatedEnd {
  private constructor(private readonly simulated: SimulatedModule) {}

  static async start(sku: string): Promise<SimulatedEnd> {
    const variant = resolveVariant(sku);
    if (!variant) {
      throw new CliError(
        `cardsim does not simulate SKU "${sku}": pass --sku with the closest (cell, cell-wifi, wifi, lora, ntn, or one of their SKUs)`,
      );
    }
    const simulated = await SimulatedModule.boot({ clock: new SystemClock(), variant, timeKnown: true });
    return new SimulatedEnd(simulated);
  }

  async send(request: JsonObject): Promise<{ reply: JsonObject | null | undefined; error?: string }> {
    // A card.restart or card.restore of the request before: wait for the module to be back.
    await this.simulated.restoring;
    const line = new TextEncoder().encode(JSON.stringify(request));
    const text = await this.simulated.lineHandler().handleLine(line);
    if (text === undefined && !isCommand(request)) return { reply: null, error: "no reply" };
    return parseReply(text?.trimEnd());
  }

  close(): Promise<void> {
    return this.simulated.close();
  }
}

/** Compares one exchange of the real module with the simulated module's answer to the same request. */
export async function compareStep(
  index: number,
  entry: TranscriptEntry,
  sim: SimulatedEnd,
  rules: RuleSet,
): Promise<Exchange> {
  const answer = await sim.send(entry.request);
  const differences = compareReplies(
    requestName(entry.request),
    entry.reply ?? undefined,
    answer.reply ?? undefined,
    rules,
  );
  return {
    index,
    request: entry.request,
    real: entry.reply,
    ...(entry.error ? { realError: entry.error } : {}),
    sim: answer.reply,
    ...(answer.error ? { simError: answer.error } : {}),
    differences,
  };
}
