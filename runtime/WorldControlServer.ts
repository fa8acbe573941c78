import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { World } from "../firmware/world/World.js";
import { applyWorldChange, isWorldChange, WORLD_CHANGES } from "../firmware/world/worldChanges.js";

const MAX_BODY = 4 * 1024 * 1024;

/** What `GET /world` answers: where the module is and what it feels. */
export function worldState(world: World): Record<string, unknown> {
  return {
    position: world.position() ?? null,
    playing: world.playing,
    gps: world.gps(),
    moving: world.moving(),
    orientation: world.orientation(),
    temperature: world.temperature(),
    light: world.light() ?? null,
    charging: world.charging(),
    aux: [1, 2, 3, 4].map((pin) => world.aux.level(pin as 1 | 2 | 3 | 4)),
  };
}

/**
 * The running module's world, driven from outside (`cardsim module --control HOST:PORT`, and
 * `cardsim world` talks to it): `GET /world` reads it, `POST /world` with
 * `{"op": <World method>, "args": [...]}` changes it, as a scenario's recorded world changes do.
 * Loopback by default; it controls a simulation, nothing else.
 */
export class WorldControlServer {
  readonly #server: Server;
  readonly address: { host: string; port: number };

  private constructor(server: Server, address: { host: string; port: number }) {
    this.#server = server;
    this.address = address;
  }

  static listen(world: World, host: string, port: number): Promise<WorldControlServer> {
    const server = createServer((request, response) => {
      handle(world, request, response).catch((error: unknown) =>
        answer(response, 500, { err: String((error as Error)?.message ?? error) }),
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        const address = server.address() as AddressInfo;
        resolve(new WorldControlServer(server, { host, port: address.port }));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

async function handle(world: World, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? "/").split("?")[0];
  if (path !== "/world") return answer(response, 404, { err: `no ${path} here: GET or POST /world` });
  if (request.method === "GET") return answer(response, 200, worldState(world));
  if (request.method !== "POST") return answer(response, 405, { err: "GET or POST /world" });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return answer(response, 413, { err: "a world change is at most 4 MiB" });
    chunks.push(chunk as Buffer);
  }
  let change: { op?: unknown; args?: unknown };
  try {
    change = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof change;
  } catch {
    return answer(response, 400, { err: 'the body must be JSON: {"op": ..., "args": [...]}' });
  }
  if (!isWorldChange(change.op)) {
    return answer(response, 400, { err: `op must be one of ${WORLD_CHANGES.join(", ")}` });
  }
  const args = change.args === undefined ? [] : change.args;
  if (!Array.isArray(args)) return answer(response, 400, { err: "args must be an array" });
  try {
    applyWorldChange(world, change.op, args);
  } catch (error) {
    return answer(response, 400, { err: String((error as Error)?.message ?? error) });
  }
  return answer(response, 200, worldState(world));
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body) + "\n");
}
