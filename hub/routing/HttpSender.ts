import {
  Agent as HttpAgent,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
  type RequestOptions,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { Clock } from "../../core/Clock.js";
import type { CheckedTarget, RouteTargets } from "./RouteTargets.js";

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Text is sent as UTF-8. */
  body: Uint8Array | string | null;
  /** The whole exchange (connect, send, answer, body) must end within this, on the hub clock. */
  timeoutMs: number;
  /** Response body bytes kept; the rest is read and dropped (up to READ_LIMIT), then cut off. */
  maxBytes: number;
}

export type OutboundResult =
  | {
      kind: "response";
      status: number;
      /** As Node parsed them: lower-case names (see `headerMap`). */
      headers: IncomingHttpHeaders;
      body: Uint8Array;
      /** True when the body was longer than `maxBytes` (only the first `maxBytes` are in `body`). */
      truncated: boolean;
    }
  /** `refused`: the route target policy refused the address (nothing was sent; not worth retrying). */
  | { kind: "failed"; reason: "timeout" | "connection" | "invalid" | "refused"; message: string }
  /** Abandoned because the hub is stopping: not an attempt, nothing to log. */
  | { kind: "aborted" };

/** Response headers as one string each (repeated ones joined with ", "). */
export function headerMap(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Bytes of a response read at most: beyond this the connection is closed (the body is kept cut). */
const READ_LIMIT = 16 * 1024 * 1024;
const MAX_CACHED_URLS = 1000;

class Timeout extends Error {}
class Aborted extends Error {}

function classify(error: unknown): OutboundResult {
  if (error instanceof Aborted) return { kind: "aborted" };
  if (error instanceof Timeout) return { kind: "failed", reason: "timeout", message: error.message };
  const e = error as NodeJS.ErrnoException;
  const code = e.code ?? "";
  if (code.startsWith("HPE_") || code === "ERR_INVALID_HTTP_RESPONSE") {
    return { kind: "failed", reason: "invalid", message: `invalid HTTP response: ${e.message}` };
  }
  return { kind: "failed", reason: "connection", message: e.message || code || "connection failed" };
}

type Target = { secure: boolean; host: string; port: number; options: RequestOptions } | { error: string };

/** A lookup that answers the address already checked, whatever form the caller asks for. */
function pinned(target: CheckedTarget): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      (callback as (e: null, a: string, f: number) => void)(null, target.address, target.family);
    }
  };
}

/**
 * Plain HTTP(S) requests for routes and proxied web requests, over keep-alive connections. The
 * timeout runs on the hub clock (a fake clock drives it in tests). Redirects are never followed:
 * the 3xx answer is the result. With `targets`, each request's host is checked (resolved) first
 * and the connection is made to the address checked (`refused` when the policy says no).
 */
export class HttpSender {
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  readonly #open = new Set<ClientRequest>();
  /** Parsed URLs: a route sends every event to the same one. */
  readonly #targets = new Map<string, Target>();

  constructor(
    private readonly clock: Clock,
    private readonly targets?: RouteTargets,
  ) {}

  #target(text: string): Target {
    let target = this.#targets.get(text);
    if (target) return target;
    try {
      const url = new URL(text);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        target = { error: `${url.protocol.slice(0, -1)} URLs are not supported (http and https only)` };
      } else {
        const secure = url.protocol === "https:";
        const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
        const port = url.port ? Number(url.port) : secure ? 443 : 80;
        target = {
          secure,
          host: hostname,
          port,
          options: {
            protocol: url.protocol,
            hostname,
            port,
            path: `${url.pathname}${url.search}`,
            ...(url.username || url.password
              ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
              : {}),
            agent: secure ? this.#https : this.#http,
          },
        };
      }
    } catch {
      target = { error: `not a URL: ${text}` };
    }
    if (this.#targets.size >= MAX_CACHED_URLS) this.#targets.clear();
    this.#targets.set(text, target);
    return target;
  }

  async send(req: OutboundRequest): Promise<OutboundResult> {
    const target = this.#target(req.url);
    if ("error" in target) return { kind: "failed", reason: "connection", message: target.error };
    let options = target.options;
    if (this.targets) {
      const checked = await this.targets.check(target.host, target.port);
      if (!checked.ok) return { kind: "failed", reason: "refused", message: `not sent: ${checked.reason}` };
      options = { ...options, lookup: pinned(checked.target) };
    }
    return this.#send(req, target.secure, options);
  }

  #send(req: OutboundRequest, secure: boolean, options: RequestOptions): Promise<OutboundResult> {
    const headers: Record<string, string> = {};
    for (const name in req.headers) {
      const lower = name.toLowerCase();
      if (lower === "content-length" || lower === "transfer-encoding" || lower === "connection") continue;
      headers[name] = req.headers[name]!;
    }
    return new Promise<OutboundResult>((resolve) => {
      let client: ClientRequest;
      try {
        client = (secure ? httpsRequest : httpRequest)({
          ...options,
          method: req.method,
          headers,
        });
      } catch (error) {
        // A header Node refuses (characters HTTP does not allow), a method it does not know.
        resolve({
          kind: "failed",
          reason: "connection",
          message: `request not sent: ${(error as Error).message}`,
        });
        return;
      }
      let settled = false;
      const timer = this.clock.setTimer(() => {
        client.destroy(new Timeout(`no complete answer within ${req.timeoutMs} ms`));
      }, req.timeoutMs);
      const finish = (result: OutboundResult): void => {
        if (settled) return;
        settled = true;
        this.clock.clearTimer(timer);
        this.#open.delete(client);
        resolve(result);
      };
      this.#open.add(client);
      client.on("error", (error) => finish(classify(error)));
      client.on("response", (res: IncomingMessage) => {
        let first: Buffer | undefined;
        let more: Buffer[] | undefined;
        let kept = 0;
        let total = 0;
        const answer = (): void => {
          const body = more ? Buffer.concat(first ? [first, ...more] : more) : first;
          finish({
            kind: "response",
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: body ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : new Uint8Array(0),
            truncated: total > req.maxBytes,
          });
        };
        res.on("data", (chunk: Buffer) => {
          total += chunk.length;
          if (kept < req.maxBytes) {
            const part = kept + chunk.length <= req.maxBytes ? chunk : chunk.subarray(0, req.maxBytes - kept);
            if (!first) first = part;
            else (more ??= []).push(part);
            kept += part.length;
          }
          if (total > READ_LIMIT) {
            answer();
            res.destroy();
          }
        });
        res.on("end", answer);
        res.on("error", (error) => finish(classify(error)));
        res.on("aborted", () => finish(classify(new Error("the connection closed before the answer ended"))));
      });
      const body = req.body;
      client.end(
        body === null
          ? undefined
          : typeof body === "string"
            ? body
            : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      );
    });
  }

  /** Ends the requests in flight: they resolve as aborted. */
  abortAll(): void {
    for (const client of this.#open) client.destroy(new Aborted("stopped"));
  }

  /** Aborts what is in flight and drops idle connections. */
  close(): void {
    this.abortAll();
    this.#http.destroy();
    this.#https.destroy();
  }
}
