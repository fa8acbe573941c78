import { createServer, type AddressInfo, type Server } from "node:net";
import { SerialSession, type LineHandler } from "../firmware/host/SerialSession.js";
import type { ByteLink } from "./links/ByteLink.js";
import { TcpLink } from "./links/TcpLink.js";

/** Connects a byte link to a module: the link carries the serial line protocol. */
export function attachSerialLink(handler: LineHandler, link: ByteLink): SerialSession {
  const session = new SerialSession(handler, { write: (bytes) => link.write(bytes) });
  link.onData((bytes) => session.receive(bytes));
  return session;
}

/**
 * Serves a module's serial line protocol on a TCP port. Every connection is a host link of its
 * own; the module answers them one request at a time, as it would two hosts on two ports.
 */
export class ModuleLinkServer {
  readonly #server: Server;
  readonly #links = new Set<ByteLink>();

  private constructor(server: Server) {
    this.#server = server;
  }

  /**
   * `attach` connects each new connection to the module; by default the plain line protocol
   * (`attachSerialLink`). A pty bridge passes one that adds the module's UART model.
   */
  static listen(
    handler: LineHandler,
    host: string,
    port: number,
    attach: (handler: LineHandler, link: ByteLink) => void = attachSerialLink,
  ): Promise<ModuleLinkServer> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      const instance = new ModuleLinkServer(server);
      server.on("connection", (socket) => {
        const link = new TcpLink(socket);
        instance.#links.add(link);
        link.onClose(() => instance.#links.delete(link));
        attach(handler, link);
      });
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve(instance);
      });
    });
  }

  get address(): { host: string; port: number } {
    const a = this.#server.address() as AddressInfo;
    return { host: a.address, port: a.port };
  }

  get connections(): number {
    return this.#links.size;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await Promise.all([...this.#links].map((l) => l.close()));
    await closed;
  }
}
