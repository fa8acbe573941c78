import { Environment, type EnvEntry } from "../env/Environment.js";
import { ENV_TEMPLATE_KEY, envTemplateBytes } from "../env/EnvTemplate.js";
import {
  argumentRequired,
  argumentsIncompatible,
  envNamesEmpty,
  envNotModified,
  envTemplateRequired,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import type { Args } from "./Args.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

/** `env.*` requests: the module's environment variables (firmware/config/Environment.ts). */
export const envRequests: RequestTable = {
  "env.default": envDefault,
  // env.set.rsp and env.modified.rsp require `time`: 0 is sent while nothing is dated.
  "env.set": { handler: envSet, keep: ["time"] },
  "env.get": envGet,
  "env.modified": { handler: envModified, keep: ["time"] },
  "env.template": envTemplate,
};

/** The variable name of a set/default request (required, not empty). */
function variableName(request: string, args: Args): string {
  const name = args.string("name");
  if (name === undefined || name === "") throw argumentRequired(request, "name");
  return name;
}

/** `text` absent or empty deletes the variable. */
function variableText(args: Args): string | undefined {
  const text = args.string("text");
  return text === "" ? undefined : text;
}

function envDefault({ name: request, args, module }: RequestContext): JsonObject {
  const name = variableName(request, args);
  const text = variableText(args);
  // On LoRa defaults never reach the hub; the sync engine checks the variant, the flag is kept.
  const sync = args.bool("sync");
  new Environment(module.notebox).setDefault(name, text, module.noteTime(), sync);
  return {};
}

/** Deprecated since firmware 7.2.2 but still answered: a local value the hub cannot override. */
function envSet({ name: request, args, module }: RequestContext): JsonObject {
  const name = variableName(request, args);
  const env = new Environment(module.notebox);
  env.setLocal(name, variableText(args), module.noteTime());
  return { time: env.modified() };
}

function envGet({ name: request, args, module }: RequestContext): JsonObject {
  const name = args.string("name");
  const names = args.stringArray("names");
  const since = args.int("time");
  if (name !== undefined && names !== undefined) throw argumentsIncompatible(request, "name", "names");
  if (names !== undefined && names.length === 0) throw envNamesEmpty();

  const env = new Environment(module.notebox);
  const visible = templateFilter(module);

  if (name !== undefined) {
    const entry = visible(name) ? env.get(name) : undefined;
    const time = entry?.time ?? env.modified();
    if (since !== undefined && time <= since) throw envNotModified();
    return { text: entry?.text, time };
  }

  const time = env.modified();
  if (since !== undefined && time <= since) throw envNotModified();
  // Built from entries so that any name, "__proto__" included, is an own member of the body.
  const pairs: [string, string][] = [];
  if (names !== undefined) {
    for (const wanted of names) {
      const entry: EnvEntry | undefined = visible(wanted) ? env.get(wanted) : undefined;
      if (entry) pairs.push([wanted, entry.text]);
    }
  } else {
    for (const entry of env.all().values()) if (visible(entry.name)) pairs.push([entry.name, entry.text]);
  }
  return { body: Object.fromEntries(pairs), time };
}

/**
 * Which names `env.get` may read. LoRa and satellite modules keep variables as fixed records
 * described by `env.template`: they need one, and only its names exist for them.
 */
function templateFilter(module: ModuleContext): (name: string) => boolean {
  if (!module.variant.lora && !module.variant.ntn) return () => true;
  const template = module.notebox.config<JsonObject>(ENV_TEMPLATE_KEY);
  if (!template) throw envTemplateRequired(module.variant.radio);
  const names = new Set(Object.keys(template).map((n) => n.toLowerCase()));
  return (name) => names.has(name.toLowerCase());
}

function envModified({ args, module }: RequestContext): JsonObject {
  const since = args.int("time");
  const time = new Environment(module.notebox).modified();
  if (since !== undefined && time <= since) throw envNotModified();
  return { time };
}

/** Sets the template of type hints (`{bytes}` per record), or clears it without a body. */
function envTemplate({ args, module }: RequestContext): JsonObject {
  const body = args.object("body");
  if (body === undefined) {
    module.notebox.setConfig(ENV_TEMPLATE_KEY, undefined);
    return {};
  }
  const bytes = envTemplateBytes(body);
  module.notebox.setConfig(ENV_TEMPLATE_KEY, body);
  return { bytes };
}
