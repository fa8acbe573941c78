import { createServer, type AddressInfo, type Server } from "node:net";
import { SerialSession, type LineHandler } from "../firmware/host/SerialSession.js";
import type { ByteLink } from "./links/ByteLink.js";
import { lineReplies } from "./links/lineReplies.js";
import { TcpLink } from "./links/TcpLink.js";

/**
 * Sent by a tool (`cardsim req`) on cardsim's TCP port to see the module's notices about its
 * requests (arguments it ignored) as lines starting `# ` before each reply. A `cmd`, so a real
 * module, or a cardsim link that does not offer notices, answers nothing and changes nothing.
 */
export const NOTICES_COMMAND = '{"cmd":"cardsim.notices"}';

/** Prefix of a notice line on a link that asked for them. */
export const NOTICE_PREFIX = "# ";

const encoder = new TextEncoder();
const noticesCommand = encoder.encode(NOTICES_COMMAND);

function isNoticesCommand(line: Uint8Array): boolean {
  let end = line.length;
  while (end > 0 && (line[end - 1] === 0x0d || line[end - 1] === 0x20)) end--;
  if (end !== noticesCommand.length) return false;
  for (let i = 0; i < end; i++) if (line[i] !== noticesCommand[i]) return false;
  return true;
}

/** A handler that, once the link sent NOTICES_COMMAND, writes the module's notices before replies. */
function offeringNotices(handler: LineHandler): LineHandler {
  const reply = lineReplies(handler);
  let on = false;
  const answer = async (line: Uint8Array) => {
    if (!on && isNoticesCommand(line)) {
      on = true;
      return undefined;
    }
    const out = await reply(line);
    if (!on || !out?.notices?.length) return out;
    const lines = out.notices.map((n) => `${NOTICE_PREFIX}${n.replace(/[\r\n]+/g, " ")}\r\n`).join("");
    return { ...out, text: lines + out.text };
  };
  return {
    handleLine: async (line) => (await answer(line))?.text,
    handleLineReply: answer,
    handleOverflow: (length) => handler.handleOverflow(length),
  };
}

/**
 * Connects a byte link to a module: the link carries the serial line protocol. With `notices`,
 * a tool on the link may ask to see what the module says about its requests (NOTICES_COMMAND).
 */
export function attachSerialLink(
  handler: LineHandler,
  link: ByteLink,
  options: { notices?: boolean } = {},
): SerialSession {
  const session = new SerialSession(options.notices ? offeringNotices(handler) : handler, {
    write: (bytes) => link.write(bytes),
  });
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
   * (`attachSerialLink`, offering notices to tools that ask with `notices`). A pty bridge passes
   * one that adds the module's UART model.
   */
  static listen(
    handler: LineHandler,
    host: string,
    port: number,
    attach?: (handler: LineHandler, link: ByteLink) => void,
    options: { notices?: boolean } = {},
  ): Promise<ModuleLinkServer> {
    const connect = attach ?? ((h: LineHandler, link: ByteLink) => attachSerialLink(h, link, options));
    return new Promise((resolve, reject) => {
      const server = createServer();
      const instance = new ModuleLinkServer(server);
      server.on("connection", (socket) => {
        const link = new TcpLink(socket);
        instance.#links.add(link);
        link.onClose(() => instance.#links.delete(link));
        connect(handler, link);
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
