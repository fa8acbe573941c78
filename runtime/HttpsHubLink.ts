import { readFileSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { sleep, type Clock } from "../core/Clock.js";
import { HubLinkError, type Exchanged, type HubLink } from "../firmware/radio/HubLink.js";
import { canReachHub, type RadioConditions } from "../firmware/radio/RadioConditions.js";
import {
  replyWaitMs,
  startsSession,
  type ProtocolReply,
  type ProtocolRequest,
} from "../protocol/messages.js";

/** The path every protocol message is posted to (docs/sync-protocol.md, Transport). */
export const DEVICE_SYNC_PATH = "/device/v1";

const LOOPBACK = new Set(["127.0.0.1", "::1", "[::1]", "localhost"]);

export interface HttpsHubLinkOptions {
  /** The hub: `https://host:port` (or `http://` on loopback only). */
  readonly url: string;
  /** CA certificate(s) to trust (PEM), or a file path of one; the system's CAs otherwise. */
  readonly ca?: string;
  /**
   * Milliseconds an exchange may take before it fails as a timeout (default 30 s), beyond the
   * time the hub holds a message by design (a `signals` wait, a web request's timeout).
   */
  readonly timeoutMs?: number;
  /** No exchange while these conditions cannot reach the hub (a simulated outage). */
  readonly radio?: RadioConditions;
  /** The module's clock: the radio's latency delays each exchange on it (none without a clock). */
  readonly clock?: Clock;
}

/** Checks a `--hub` URL: HTTPS anywhere, plain HTTP only on loopback. Returns the parsed URL. */
export function parseHubUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a hub URL: "${url}" (expected https://HOST:PORT)`);
  }
  if (parsed.protocol === "https:") return parsed;
  if (parsed.protocol === "http:" && LOOPBACK.has(parsed.hostname)) return parsed;
  if (parsed.protocol === "http:") {
    throw new Error(
      `plain HTTP to ${parsed.hostname} is refused: use https:// (plain HTTP only on loopback)`,
    );
  }
  throw new Error(`not a hub URL: "${url}" (expected https://HOST:PORT)`);
}

/** A CA certificate given as PEM text or as the path of a PEM file: its text. */
export function caText(ca: string | undefined): string | undefined {
  if (ca === undefined) return undefined;
  return ca.includes("-----BEGIN") ? ca : readFileSync(ca, "utf8");
}

/** A kept-alive agent and how many links use it. */
interface SharedAgent {
  readonly agent: HttpAgent | HttpsAgent;
  users: number;
}

/**
 * One agent per scheme and trusted CA for the whole process: the modules a process runs (a
 * fleet) share its kept-alive connections and TLS sessions instead of each making its own, and
 * the last link to close destroys it.
 */
const agents = new Map<string, SharedAgent>();

export function takeAgent(
  secure: boolean,
  ca: string | undefined,
): { key: string; agent: HttpAgent | HttpsAgent } {
  const key = `${secure ? "https" : "http"}\n${ca ?? ""}`;
  let shared = agents.get(key);
  if (!shared) {
    const agent = secure
      ? new HttpsAgent({ keepAlive: true, ...(ca ? { ca } : {}) })
      : new HttpAgent({ keepAlive: true });
    agents.set(key, (shared = { agent, users: 0 }));
  }
  shared.users++;
  return { key, agent: shared.agent };
}

export function releaseAgent(key: string): void {
  const shared = agents.get(key);
  if (!shared || --shared.users > 0) return;
  agents.delete(key);
  shared.agent.destroy();
}

/**
 * The module's connection to a hub over HTTPS (plain HTTP on loopback when asked): one POST of a
 * protocol message per exchange, on a kept-alive connection (of an agent every link of the process
 * with the same CA shares), trusting the hub's CA. A connection
 * that cannot be made is `unreachable`; one that breaks after the request was written is
 * `dropped` (the hub may have acted on it); no answer in time is `timeout`.
 */
export class HttpsHubLink implements HubLink {
  readonly secure: boolean;
  readonly #url: URL;
  /** Where and how every POST goes (the URL's parts, read once), less its length and timeout. */
  readonly #target: RequestOptions;
  readonly #send: typeof httpRequest;
  readonly #agentKey: string;
  #closed = false;
  readonly #timeoutMs: number;
  readonly #radio: RadioConditions | undefined;
  readonly #clock: Clock | undefined;

  constructor(options: HttpsHubLinkOptions) {
    this.#url = new URL(DEVICE_SYNC_PATH, parseHubUrl(options.url));
    this.secure = this.#url.protocol === "https:";
    const { key, agent } = takeAgent(this.secure, caText(options.ca));
    this.#agentKey = key;
    this.#send = this.secure ? httpsRequest : httpRequest;
    const { protocol, hostname, port, pathname } = this.#url;
    this.#target = {
      protocol,
      // A bracketed IPv6 literal is connected to without its brackets.
      hostname: hostname.startsWith("[") ? hostname.slice(1, -1) : hostname,
      ...(port ? { port: Number(port) } : {}),
      path: pathname,
      method: "POST",
      agent,
    };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#radio = options.radio;
    this.#clock = options.clock;
  }

  get url(): string {
    return this.#url.origin;
  }

  /** The hub's host and port as `hub.get` reports them (`localhost:7443`). */
  get host(): string {
    return this.#url.host;
  }

  async exchange(message: ProtocolRequest): Promise<Exchanged> {
    const radio = this.#radio?.state();
    if (radio && !canReachHub(radio)) {
      throw new HubLinkError("unreachable", radio.registered ? "the hub cannot be reached" : "no network");
    }
    // A session's first message opens the connection: a scripted connection failure refuses it.
    if (startsSession(message) && this.#radio?.connectFails?.()) {
      throw new HubLinkError("unreachable", "the connection to the hub failed");
    }
    if (this.#clock && radio && radio.latencyMs > 0) await sleep(this.#clock, radio.latencyMs);
    return this.#post(message, true);
  }

  /**
   * One POST. `retry`: a kept-alive connection the hub closed while it sat idle (its keep-alive
   * timeout) fails the request that reuses it before the hub read any of it; that request is sent
   * once more on a new connection. Links share their connections (one agent per process), so
   * one module's message often goes on a connection another left idle.
   */
  #post(message: ProtocolRequest, retry: boolean): Promise<Exchanged> {
    // Written as text (Node encodes it once, behind the headers); its length in bytes, counted.
    const body = JSON.stringify(message);
    const sent = Buffer.byteLength(body);
    const timeoutMs = this.#timeoutMs + replyWaitMs(message);
    return new Promise<Exchanged>((resolve, reject) => {
      let written = false;
      let answered = false;
      const req = this.#send(
        {
          ...this.#target,
          headers: { "content-type": "application/json", "content-length": sent },
          timeout: timeoutMs,
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", () => reject(new HubLinkError("dropped", "the hub's reply was cut off")));
          res.on("end", () => {
            const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            const text = bytes.toString("utf8");
            if (res.statusCode !== 200) {
              reject(
                new HubLinkError("dropped", `the hub answered HTTP ${res.statusCode}: ${text.slice(0, 120)}`),
              );
              return;
            }
            try {
              resolve({
                reply: JSON.parse(text) as ProtocolReply,
                sent,
                received: bytes.length,
              });
            } catch {
              reject(new HubLinkError("dropped", "the hub's reply is not JSON"));
            }
          });
        },
      );
      req.on("timeout", () => {
        req.destroy();
        reject(new HubLinkError("timeout", `no reply from ${this.#url.origin} in ${timeoutMs} ms`));
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        const failure = written && error.code !== "ECONNREFUSED" ? "dropped" : "unreachable";
        if (retry && req.reusedSocket && !answered && error.code === "ECONNRESET") {
          // Should the hub have read it after all, the repeat fails no worse than `dropped`.
          this.#post(message, false).then(resolve, (again: unknown) =>
            reject(
              again instanceof HubLinkError && failure === "dropped"
                ? new HubLinkError(failure, again.message)
                : again,
            ),
          );
          return;
        }
        reject(new HubLinkError(failure, `${this.#url.origin}: ${error.code ?? error.message}`));
      });
      req.end(body, () => (written = true));
    });
  }

  /** Lets go of the process's agent: the last link to close closes its kept-alive connections. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    releaseAgent(this.#agentKey);
  }
}
