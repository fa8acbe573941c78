import type { ModuleContext } from "../ModuleContext.js";
import type { VariantName } from "../Variant.js";
import type { Args } from "./Args.js";
import type { JsonObject } from "../../core/json.js";

export interface RequestContext {
  /** The request name (`note.add`). */
  readonly name: string;
  readonly args: Args;
  readonly module: ModuleContext;
  /** Sent as `cmd`: the reply is computed but not sent. */
  readonly isCommand: boolean;
}

/** Returns the reply members; zero, false and empty top-level members are pruned afterwards. */
export type RequestHandler = (ctx: RequestContext) => JsonObject | Promise<JsonObject>;

export interface RequestDefinition {
  readonly handler: RequestHandler;
  /** Variants that have this request; all when absent. */
  readonly variants?: readonly VariantName[];
  /**
   * Reply members the request's schema requires: sent even when zero or false (for example
   * `card.status` `usb`, `env.set` `time`), where every other empty member is left out.
   */
  readonly keep?: readonly string[];
}

/** One request family: request name to handler. */
export type RequestTable = Readonly<Record<string, RequestHandler | RequestDefinition>>;
