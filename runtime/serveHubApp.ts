import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { ListeningAddress } from "../hub/routing/RouteTargets.js";
import { hubClientErrorHandler } from "../hub/HubApp.js";
import type { HubListener } from "./HubApi.js";

/**
 * Serves a hub's fastify app on a loopback port of its own (127.0.0.1, a free one), beside its
 * in-process callers: a real HTTP client reaches the same routes, store and clock. `listening`
 * gets the address while it is served (routes may not point at the hub's own API); `busy` counts
 * requests in flight (a scenario holds its virtual clock while one is).
 */
export async function serveHubApp(
  app: FastifyInstance,
  who: { token: string; projectUid: string; productUid: string },
  listening: ListeningAddress[],
  busy: { requests: number },
): Promise<HubListener> {
  const server = createServer((request, response) => {
    busy.requests++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      busy.requests--;
    };
    response.on("finish", end);
    response.on("close", end);
    app.routing(request, response);
  });
  server.on("clientError", hubClientErrorHandler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const address: ListeningAddress = { host: "127.0.0.1", port };
  listening.push(address);
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    token: who.token,
    projectUid: who.projectUid,
    productUid: who.productUid,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        const i = listening.indexOf(address);
        if (i >= 0) listening.splice(i, 1);
      });
      return closing;
    },
  };
}
