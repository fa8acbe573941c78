import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { Aedes } from "aedes";

/** A request an endpoint received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

type Handler = (req: Received, res: ServerResponse) => unknown;

/**
 * A real HTTP server on loopback (port 0) recording what it receives; `handler` answers (200
 * with `ok` by default). Tests swap `handler` to make it fail, hang or redirect.
 */
export class HttpEndpoint {
  readonly received: Received[] = [];
  handler: Handler = (_req, res) => {
    res.end("ok");
  };
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<HttpEndpoint> {
    const holder: { endpoint?: HttpEndpoint } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(body.toString("utf8"));
        } catch {
          json = undefined;
        }
        const got: Received = {
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body,
          json,
        };
        const endpoint = holder.endpoint!;
        endpoint.received.push(got);
        endpoint.#wake();
        void Promise.resolve(endpoint.handler(got, res)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const endpoint = new HttpEndpoint(server, `http://127.0.0.1:${port}`);
    holder.endpoint = endpoint;
    const sockets = endpoint.#sockets;
    server.on("connection", (s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    return endpoint;
  }

  /** Resolves once `count` requests in all have arrived. */
  receivedCount(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #wake(): void {
    this.#waiters = this.#waiters.filter((w) => {
      if (this.received.length < w.count) return true;
      w.resolve();
      return false;
    });
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port on loopback nothing listens on (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server on loopback answering every connection with `reply` (bytes that are not HTTP, say). */
export async function rawServer(reply: string): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.once("data", () => s.end(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An MQTT broker (aedes) on loopback, recording what is published to it. */
export class MqttBroker {
  readonly published: { topic: string; payload: Buffer; qos: number; clientId: string }[] = [];
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly broker: Aedes,
    readonly server: NetServer,
    readonly port: number,
  ) {}

  static async start(
    options: { authenticate?: (user: string, password: string) => boolean; port?: number } = {},
  ): Promise<MqttBroker> {
    const aedes = await Aedes.createBroker();
    if (options.authenticate) {
      const check = options.authenticate;
      aedes.authenticate = (_client, username, password, done) => {
        done(null, check(username ?? "", password?.toString("utf8") ?? ""));
      };
    }
    const server = createNetServer(aedes.handle);
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const broker = new MqttBroker(aedes, server, port);
    server.on("connection", (s) => {
      broker.#sockets.add(s);
      s.on("close", () => broker.#sockets.delete(s));
    });
    aedes.on("publish", (packet, client) => {
      if (!client || packet.topic.startsWith("$SYS")) return;
      broker.published.push({
        topic: packet.topic,
        payload: Buffer.from(packet.payload),
        qos: packet.qos,
        clientId: client.id,
      });
      broker.#waiters = broker.#waiters.filter((w) => {
        if (broker.published.length < w.count) return true;
        w.resolve();
        return false;
      });
    });
    return broker;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  publishedCount(count: number): Promise<void> {
    if (this.published.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await new Promise<void>((resolve) => this.broker.close(() => resolve()));
  }

  #closed = false;
}
