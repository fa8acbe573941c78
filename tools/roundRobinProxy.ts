import { createServer as createHttpServer, request as httpRequest, type IncomingMessage } from "node:http";
import {
  connect,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from "node:net";

/** A hub process behind the proxy: where it listens. */
export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** What the proxy passed on: to which target (its index), and for HTTP the request's path and body. */
export interface Forwarded {
  readonly target: number;
  readonly path?: string;
  readonly body?: string;
}

export interface RoundRobinProxy {
  /** Where it listens (127.0.0.1). */
  readonly port: number;
  readonly url: string;
  /** Everything passed on so far, oldest first. */
  readonly forwarded: readonly Forwarded[];
  close(): Promise<void>;
}

/**
 * A round-robin in front of several hub processes, on loopback: `http` passes each HTTP request to
 * the next target in turn (a module's consecutive sync messages land on different processes), `tcp`
 * each connection (HTTPS passes through untouched: each TLS connection is one process's). A target
 * that refuses the connection is answered 502 (HTTP) or has the connection closed (TCP); the
 * proxy never retries, so a message is never sent twice by it.
 */
export async function startRoundRobinProxy(
  targets: readonly ProxyTarget[],
  mode: "http" | "tcp" = "http",
): Promise<RoundRobinProxy> {
  const forwarded: Forwarded[] = [];
  let next = 0;
  const pick = () => {
    const target = next;
    next = (next + 1) % targets.length;
    return target;
  };
  const sockets = new Set<Socket>();
  const server: Server =
    mode === "http"
      ? createHttpServer((req, res) => {
          const chunks: Buffer[] = [];
          req.on("data", (chunk: Buffer) => chunks.push(chunk));
          req.on("end", () => {
            const body = Buffer.concat(chunks);
            const index = pick();
            forwarded.push({ target: index, path: req.url ?? "/", body: body.toString("utf8") });
            const upstream = httpRequest(
              {
                ...targets[index],
                method: req.method,
                path: req.url,
                headers: { ...req.headers, "content-length": String(body.length) },
              },
              (answer: IncomingMessage) => {
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                answer.pipe(res);
              },
            );
            upstream.on("error", (error) => {
              if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
              res.end(`proxy: ${error.message}`);
            });
            upstream.end(body);
          });
        })
      : createTcpServer((client) => {
          const index = pick();
          forwarded.push({ target: index });
          const upstream = connect(targets[index]!);
          for (const socket of [client, upstream]) {
            sockets.add(socket);
            socket.on("close", () => sockets.delete(socket));
            socket.on("error", () => {
              client.destroy();
              upstream.destroy();
            });
          }
          client.pipe(upstream).pipe(client);
        });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    forwarded,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
