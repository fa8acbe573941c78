import {
  noReq,
  notSupportedOnVariant,
  reqAndCmd,
  reqNotString,
  unknownArguments,
  unknownRequest,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import { SimError } from "../SimError.js";
import { Args } from "./Args.js";
import { pruneEmpty } from "./pruneEmpty.js";
import type { RequestContext, RequestDefinition, RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

export interface DispatchResult {
  /** The reply to send; undefined for a `cmd`. */
  readonly reply: JsonObject | undefined;
  readonly name?: string;
  /** Fields the request carried that no handler read (for tracing). */
  readonly ignored?: readonly string[];
}

/**
 * Routes one parsed request to its handler. Each request runs in one Notebox transaction, so
 * what it changed is durable before its reply exists, and a failed request changes nothing.
 * Handler errors become `{"err":...}` replies; nothing a host sends can throw out of here.
 */
export class RequestDispatcher {
  readonly #requests = new Map<string, RequestDefinition>();

  constructor(tables: readonly RequestTable[]) {
    for (const table of tables) {
      for (const [name, entry] of Object.entries(table)) {
        if (this.#requests.has(name)) throw new Error(`request ${name} is defined twice`);
        this.#requests.set(name, typeof entry === "function" ? { handler: entry } : entry);
      }
    }
  }

  /** Names of every request this dispatcher knows. */
  names(): string[] {
    return [...this.#requests.keys()].sort();
  }

  /**
   * `strictArgs`: a field no handler reads is an error (the real module ignores it; strict mode
   * catches a host's misspelt argument, which would otherwise silently fall back to a default).
   */
  async dispatch(
    req: JsonObject,
    module: ModuleContext,
    options: { strictArgs?: boolean } = {},
  ): Promise<DispatchResult> {
    const hasReq = req["req"] !== undefined;
    const hasCmd = req["cmd"] !== undefined;
    const isCommand = hasCmd && !hasReq;
    let name: string | undefined;
    let reply: JsonObject;
    let ignored: string[] | undefined;
    try {
      if (hasReq && hasCmd) throw reqAndCmd();
      if (!hasReq && !hasCmd) throw noReq();
      const raw = hasReq ? req["req"] : req["cmd"];
      if (typeof raw !== "string") throw reqNotString();
      name = raw;
      const definition = this.#requests.get(name);
      if (!definition) throw unknownRequest(name);
      if (definition.variants && !definition.variants.includes(module.variant.name)) {
        throw notSupportedOnVariant(module.variant.radio);
      }
      const args = new Args(req);
      const context: RequestContext = { name, args, module, isCommand };
      const strict = options.strictArgs === true;
      // A handler that answers at once (most do) is not awaited inside the transaction.
      reply = pruneEmpty(
        await module.notebox.transact(() => {
          const result = definition.handler(context);
          return result instanceof Promise
            ? result.then((answer) => checkedArgs(context, strict, answer))
            : checkedArgs(context, strict, result);
        }),
        definition.keep,
      );
      ignored = args.unread();
    } catch (error) {
      reply = this.#errorReply(error, module, name);
    }
    if (req["id"] !== undefined) reply["id"] = req["id"];
    return { reply: isCommand ? undefined : reply, name, ignored };
  }

  #errorReply(error: unknown, module: ModuleContext, name: string | undefined): JsonObject {
    if (error instanceof SimError) return { err: error.message, ...error.fields };
    // A bug in the simulator must not take the link down: log it and answer like a module would.
    module.log.error("request failed", { request: name, error: String((error as Error)?.stack ?? error) });
    return {
      err: `${name ?? "request"}: internal error: ${String((error as Error)?.message ?? error)} {io}`,
    };
  }
}

/** In strict mode a field no handler read is an error; `reply` otherwise. */
function checkedArgs(context: RequestContext, strict: boolean, reply: JsonObject): JsonObject {
  if (strict) {
    const unread = context.args.unread();
    if (unread.length > 0) throw unknownArguments(context.name, unread);
  }
  return reply;
}
