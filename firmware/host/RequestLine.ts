import { jsonTooDeep, MAX_JSON_DEPTH } from "../../core/jsonDepth.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import {
  crcMalformed,
  crcMismatch,
  jsonObjectExpected,
  jsonPrematureEnd,
  requestTooDeep,
} from "../errors.js";
import type { ModuleLog } from "../ModuleLog.js";
import type { SimError } from "../SimError.js";
import type { LineReply } from "./LineReply.js";
import { appendCrc, checkRequestCrc } from "./RequestCrc.js";

const decoder = new TextDecoder();

/**
 * A host's request line read: the request and the CRC sequence its reply carries, or what the
 * line gets instead of a request's reply (an error line, or nothing for a `cmd`).
 */
export type RequestLine =
  | { readonly kind: "request"; readonly req: JsonObject; readonly sequence: number | undefined }
  | { readonly kind: "answer"; readonly answer: LineReply | undefined };

/**
 * Reads one host line's text (trimmed, not blank) as a request: refuses JSON nested too deep,
 * checks the request CRC, parses the JSON object. A line failing its CRC is answered with an
 * `{io}` error carrying its `id` (a `cmd` gets no answer).
 */
export function readRequestLine(text: string): RequestLine {
  // Measured on the text, before anything is parsed or built: handlers, the journal and replies
  // all walk request values recursively, and no request needs to nest this deep.
  if (jsonTooDeep(text)) return answer(errorLine(requestTooDeep(MAX_JSON_DEPTH)));
  const crc = checkRequestCrc(text);
  let req: unknown;
  try {
    req = JSON.parse(text);
  } catch (error) {
    return answer(errorLine(jsonParseError(text, error)));
  }
  if (!isJsonObject(req)) return answer(errorLine(jsonObjectExpected(text)));
  const sequence = crc.kind === "ok" || crc.kind === "mismatch" ? crc.sequence : undefined;
  if (crc.kind === "mismatch" || crc.kind === "malformed") {
    if (req["cmd"] !== undefined && req["req"] === undefined) return answer(undefined);
    const err = crc.kind === "mismatch" ? crcMismatch() : crcMalformed();
    const reply: JsonObject = { err: err.message };
    if (req["id"] !== undefined) reply["id"] = req["id"];
    return answer(wireReply(reply, sequence));
  }
  return { kind: "request", req, sequence };
}

/** A reply as the wire carries it: JSON, the request's CRC sequence if it had one, `\r\n`. */
export function wireReply(reply: JsonObject, sequence: number | undefined): LineReply {
  const json = JSON.stringify(reply);
  return { text: (sequence === undefined ? json : appendCrc(json, sequence)) + "\r\n" };
}

/** An error as a reply line (without a CRC). */
export function errorLine(error: SimError): LineReply {
  return wireReply({ err: error.message }, undefined);
}

/** `--trace`: a line and its answer in the log, readable as they were on the wire. */
export function traceLine(log: ModuleLog, line: Uint8Array, out: LineReply | undefined): void {
  const text = decoder.decode(line.subarray(0, 512));
  const more = line.length > 512 ? ` ... (${line.length} bytes)` : "";
  log.info(`> ${text === "" ? "(blank line)" : text}${more}`);
  if (out) log.info(`< ${out.text.trimEnd() === "" ? "(blank line)" : out.text.trimEnd()}`);
}

function answer(line: LineReply | undefined): RequestLine {
  return { kind: "answer", answer: line };
}

/**
 * The module's parser error for a line that is not JSON: a request cut short names the last
 * token it read; otherwise the rest of the line from where parsing failed is echoed.
 */
function jsonParseError(text: string, error: unknown): SimError {
  const message = String((error as Error)?.message);
  const match = /position (\d+)/.exec(message);
  const at = match ? Number(match[1]) : message.includes("end of JSON input") ? text.length : 0;
  if (at >= text.length) {
    const lastDelimiter = Math.max(
      text.lastIndexOf("{"),
      text.lastIndexOf(","),
      text.lastIndexOf(":"),
      text.lastIndexOf("["),
    );
    return jsonPrematureEnd(text.slice(lastDelimiter + 1));
  }
  return jsonObjectExpected(text.slice(at) || text);
}
