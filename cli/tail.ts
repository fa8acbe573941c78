import { readFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { type Command, Option } from "commander";
import type { FeedItem } from "../hub/feed/HubFeed.js";
import { feedLine } from "../hub/feed/feedLines.js";
import { CliError, isCliError } from "./CliError.js";

const DEFAULT_DIR = "./.cardsim";
const STREAM_PATH = "/console/api/stream";
/** Waits between reconnections: 0.5 s, doubling, at most 10 s. */
const RETRY_MS = [500, 1000, 2000, 5000, 10_000];

interface TailOptions {
  dir: string;
  hub?: string;
  token?: string;
  hubCa?: string;
  project?: string;
  device: string[];
  file: string[];
  kinds?: string;
  json?: boolean;
}

interface HubAccess {
  url: URL;
  token: string;
  ca?: string;
}

const collect = (value: string, previous: string[]) => [
  ...previous,
  ...value.split(",").filter((v) => v !== ""),
];

/** The hub and its token: `--hub URL --token T`, or the credentials file of `--dir D`. */
async function hubAccess(options: TailOptions): Promise<HubAccess> {
  if (options.hub !== undefined || options.token !== undefined) {
    if (options.hub === undefined || options.token === undefined)
      throw new CliError(
        "give --hub URL and --token T together (or neither: --dir D's credentials.json says them)",
      );
    let url: URL;
    try {
      url = new URL(options.hub);
    } catch {
      throw new CliError(`--hub ${options.hub} is not a URL: give one like http://127.0.0.1:7480`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new CliError(`--hub ${options.hub}: use an http:// or https:// URL`);
    const ca = options.hubCa ? await readFile(options.hubCa, "utf8") : undefined;
    return { url, token: options.token, ...(ca ? { ca } : {}) };
  }
  const path = join(options.dir, "credentials.json");
  let credentials: { hub_url?: string; token?: string; project_uid?: string };
  try {
    credentials = JSON.parse(await readFile(path, "utf8")) as typeof credentials;
  } catch {
    throw new CliError(
      `no hub credentials in ${path}: start a hub with cardsim hub --dir ${options.dir} (or give --hub URL --token T)`,
    );
  }
  if (!credentials.hub_url || !credentials.token)
    throw new CliError(`${path} names no hub_url and token: start the hub again to rewrite it`);
  return { url: new URL(credentials.hub_url), token: credentials.token };
}

function streamUrl(access: HubAccess, options: TailOptions): URL {
  const url = new URL(STREAM_PATH, access.url);
  if (options.project) url.searchParams.set("project", options.project);
  if (options.device.length > 0) url.searchParams.set("device", options.device.join(","));
  if (options.file.length > 0) url.searchParams.set("file", options.file.join(","));
  if (options.kinds) url.searchParams.set("kinds", options.kinds);
  return url;
}

/** Reads server-sent events from a response, calling `each` with each event's name and data. */
function readEvents(response: IncomingMessage, each: (name: string, data: string) => void): Promise<void> {
  return new Promise((resolve) => {
    let buffer = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
        }
        if (data.length > 0) each(name, data.join("\n"));
      }
    });
    response.on("end", resolve);
    response.on("error", () => resolve());
    response.on("close", resolve);
  });
}

/**
 * One connection to the stream: resolves when it ends; rejects with the hub's refusal. The HTTP
 * client is loaded here, when it is used, not at every start of the command line.
 */
async function connect(
  access: HubAccess,
  url: URL,
  print: (item: FeedItem) => void,
  connected: () => void,
): Promise<void> {
  const { request: send } =
    url.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve, reject) => {
    const request = send(url, {
      headers: { authorization: `Bearer ${access.token}`, accept: "text/event-stream" },
      ...(access.ca ? { ca: access.ca } : {}),
    });
    request.on("error", reject);
    request.on("response", (response) => {
      if (response.statusCode !== 200) {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (c: string) => (body += c));
        response.on("end", () => {
          let text = `the hub answered HTTP ${response.statusCode}`;
          try {
            text = String((JSON.parse(body) as { err?: string }).err ?? text);
          } catch {
            // Not the API's error shape: the status says it.
          }
          reject(new CliError(text));
        });
        return;
      }
      connected();
      void readEvents(response, (name, data) => {
        if (name === "hello") return;
        print(JSON.parse(data) as FeedItem);
      }).then(resolve);
    });
    request.end();
  });
}

/** Prints an item: NDJSON, or its line (a session's own event line is left to the session line). */
function printer(options: TailOptions): (item: FeedItem) => void {
  return (item) => {
    if (options.json) return void process.stdout.write(`${JSON.stringify(item)}\n`);
    if (item.kind === "event" && item.file === "_session.qo") {
      const kinds = options.kinds?.split(",");
      if (!kinds || kinds.includes("session")) return;
    }
    process.stdout.write(`${feedLine(item)}\n`);
  };
}

async function tail(options: TailOptions): Promise<never> {
  const access = await hubAccess(options);
  const url = streamUrl(access, options);
  const print = printer(options);
  let failures = 0;
  for (;;) {
    let lost = false;
    try {
      await connect(access, url, print, () => {
        if (failures > 0) process.stderr.write(`cardsim tail: reconnected to ${access.url.origin}\n`);
        else process.stderr.write(`cardsim tail: following ${access.url.origin} (Ctrl-C stops)\n`);
        failures = 0;
      });
      lost = true;
    } catch (error) {
      if (isCliError(error)) throw error;
      if (failures === 0)
        process.stderr.write(
          `cardsim tail: no hub answers at ${access.url.origin} (${(error as Error).message}); retrying\n`,
        );
    }
    if (lost)
      process.stderr.write(`cardsim tail: the hub at ${access.url.origin} closed the stream; reconnecting\n`);
    const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
    failures++;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** `cardsim tail`: the hub's events, sessions, route deliveries and DFU steps as they happen. */
export function registerTailCommand(program: Command): void {
  program
    .command("tail")
    .description(
      "print the hub's events, sessions, route deliveries and DFU steps as they happen, a line each",
    )
    .option(
      "--dir <D>",
      "the hub's state directory (its credentials.json names the hub and token)",
      DEFAULT_DIR,
    )
    .option("--hub <URL>", "the hub's URL (with --token; instead of --dir)")
    .option("--token <T>", "an API token of the hub (with --hub)")
    .option("--hub-ca <FILE>", "the CA certificate of an https:// --hub")
    .option("--project <UID>", "only this project's (a ProjectUID or ProductUID)")
    .addOption(
      new Option("--device <UID>", "only this device's (repeat or comma-separate for more)")
        .argParser(collect)
        .default([], "every device"),
    )
    .addOption(
      new Option("--file <NOTEFILE>", "only this notefile's events and deliveries (repeatable)")
        .argParser(collect)
        .default([], "every notefile"),
    )
    .addOption(
      new Option("--kinds <LIST>", "which: event, session, delivery, dfu (comma-separated)").default(
        undefined,
        "all",
      ),
    )
    .option("--json", "one JSON object a line (NDJSON) instead of lines for people")
    .action((options: TailOptions) => tail(options));
}
