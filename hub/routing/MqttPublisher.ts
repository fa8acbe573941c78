import { connect, type IClientOptions, type MqttClient } from "mqtt";
import type { Clock } from "../../core/Clock.js";
import type { JsonObject } from "../../core/json.js";
import { isIpLiteral } from "./addressClass.js";
import { hostOf, portOf, type RouteTargets } from "./RouteTargets.js";

export type PublishResult =
  | { kind: "published" }
  /** `refused`: the route target policy refused the broker's address (not worth retrying). */
  | { kind: "failed"; reason: "timeout" | "connection" | "refused"; message: string }
  | { kind: "aborted" };

/** The broker URL of an MQTT route: `broker` as given when it names a scheme, else built with `port`. */
export function brokerUrl(settings: JsonObject): string {
  const broker = String(settings.broker ?? "").trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(broker)) return broker;
  const secure = Boolean(settings.certificate || settings.key);
  const port = String(settings.port ?? "").trim() || (secure ? "8883" : "1883");
  const host = broker.includes(":") && !broker.startsWith("[") ? `[${broker}]` : broker;
  return `${secure ? "mqtts" : "mqtt"}://${host}:${port}`;
}

/** The route target policy refused the broker's address. */
class RefusedTarget extends Error {}

interface Connection {
  /** What the connection was made with: a changed route gets a new one. */
  signature: string;
  client: Promise<MqttClient>;
}

/**
 * Publishes routed events with the `mqtt` client library, one connection per route kept open
 * between events (QoS 1: an event counts as delivered when the broker acknowledged it). The
 * library's own reconnecting is off: a lost connection fails the attempt, which the delivery
 * queue retries, and the next attempt connects again. With `targets`, each new connection's
 * broker host is checked (resolved) first and the connection is made to the address checked.
 */
export class MqttPublisher {
  readonly #connections = new Map<string, Connection>();

  constructor(
    private readonly clock: Clock,
    private readonly targets?: RouteTargets,
  ) {}

  async publish(
    routeUid: string,
    settings: JsonObject,
    payload: Uint8Array | string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PublishResult> {
    if (signal?.aborted) return { kind: "aborted" };
    const topic = String(settings.topic ?? "");
    let timer: ReturnType<Clock["setTimer"]> | undefined;
    let onAbort: (() => void) | undefined;
    const guard = new Promise<PublishResult>((resolve) => {
      timer = this.clock.setTimer(
        () =>
          resolve({
            kind: "failed",
            reason: "timeout",
            message: `no acknowledgement within ${timeoutMs} ms`,
          }),
        timeoutMs,
      );
      onAbort = () => resolve({ kind: "aborted" });
      signal?.addEventListener("abort", onAbort);
    });
    const work = (async (): Promise<PublishResult> => {
      try {
        const client = await this.#client(routeUid, settings, timeoutMs);
        const bytes =
          typeof payload === "string"
            ? Buffer.from(payload, "utf8")
            : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
        await client.publishAsync(topic, bytes, { qos: 1 });
        return { kind: "published" };
      } catch (error) {
        this.#drop(routeUid);
        return {
          kind: "failed",
          reason: error instanceof RefusedTarget ? "refused" : "connection",
          message: (error as Error).message || "connection failed",
        };
      }
    })();
    const result = await Promise.race([work, guard]);
    if (timer !== undefined) this.clock.clearTimer(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    if (result.kind !== "published") this.#drop(routeUid);
    return result;
  }

  #client(routeUid: string, settings: JsonObject, timeoutMs: number): Promise<MqttClient> {
    const url = brokerUrl(settings);
    const signature = JSON.stringify([
      url,
      settings.client_id,
      settings.username,
      settings.password,
      settings.certificate,
      settings.key,
    ]);
    const known = this.#connections.get(routeUid);
    if (known && known.signature === signature) return known.client;
    if (known) this.#drop(routeUid);
    const options: IClientOptions = {
      reconnectPeriod: 0,
      connectTimeout: timeoutMs,
      clean: true,
      ...(settings.client_id ? { clientId: String(settings.client_id) } : {}),
      ...(settings.username ? { username: String(settings.username) } : {}),
      ...(settings.password ? { password: String(settings.password) } : {}),
      ...(settings.certificate ? { cert: String(settings.certificate) } : {}),
      ...(settings.key ? { key: String(settings.key) } : {}),
    };
    const connection: Connection = { signature, client: undefined as unknown as Promise<MqttClient> };
    const client = this.#checked(url, options).then(
      ({ url: checkedUrl, options: checkedOptions }) =>
        new Promise<MqttClient>((resolve, reject) => {
          const c = connect(checkedUrl, checkedOptions);
          const failed = (error: Error): void => {
            c.end(true);
            reject(error);
          };
          c.once("connect", () => {
            c.off("error", failed);
            // Later failures end this connection; the next attempt makes a new one.
            c.on("error", () => this.#drop(routeUid, connection));
            c.on("close", () => this.#drop(routeUid, connection));
            resolve(c);
          });
          c.once("error", failed);
          c.once("close", () => failed(new Error(`connection to ${url} closed`)));
        }),
    );
    client.catch(() => undefined);
    connection.client = client;
    this.#connections.set(routeUid, connection);
    return client;
  }

  /**
   * The broker URL with its host replaced by the address the route target policy checked (a TLS
   * connection still names the host it was given); a refusal is a RefusedTarget.
   */
  async #checked(url: string, options: IClientOptions): Promise<{ url: string; options: IClientOptions }> {
    if (!this.targets) return { url, options };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { url, options }; // the library says what is wrong with it
    }
    const host = hostOf(parsed);
    const checked = await this.targets.check(host, portOf(parsed));
    if (!checked.ok) throw new RefusedTarget(`not sent: ${checked.reason}`);
    const { address, family } = checked.target;
    parsed.hostname = family === 6 ? `[${address}]` : address;
    return {
      url: parsed.href,
      options: { ...options, ...(isIpLiteral(host) ? {} : { servername: host }) },
    };
  }

  /** Ends the route's connection (only `which`, when given: a newer one stays). */
  #drop(routeUid: string, which?: Connection): void {
    const known = this.#connections.get(routeUid);
    if (!known || (which && known !== which)) return;
    this.#connections.delete(routeUid);
    void known.client.then(
      (c) => c.end(true),
      () => undefined,
    );
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(
      all.map((c) =>
        c.client.then(
          (client) => client.endAsync(true),
          () => undefined,
        ),
      ),
    );
  }
}
