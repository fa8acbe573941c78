import type { TLSSocket } from "node:tls";
import type { FastifyRequest } from "fastify";
import { helloSource } from "../sync/HelloThrottle.js";
import type { HubRouter } from "./HubRouter.js";

/** True when the request came over TLS (the hub's HTTPS listener). */
function overTls(request: FastifyRequest): boolean {
  return request.protocol === "https" || (request.raw.socket as Partial<TLSSocket>).encrypted === true;
}

/**
 * The device sync over HTTPS (docs/sync-protocol.md, Transport): each message is one
 * `POST /device/v1` with a JSON body, answered 200 with the protocol's reply, refusals included.
 * No user authentication (the protocol authenticates the module) and no API rate limit (the
 * protocol limits hellos per device and source address). A body
 * that is not JSON, nested deeper than 100 levels or larger than 1 MiB never reaches the protocol
 * (400, 413). Secure notefiles move only when the request came over TLS.
 */
export function registerDeviceSyncRoutes(router: HubRouter): void {
  const { sync } = router.services;
  router.public("POST", "/device/v1", async (ctx) => {
    const length = Number(ctx.request.headers["content-length"]);
    return sync.handle(ctx.request.body, {
      secure: overTls(ctx.request),
      // The socket's address (the hub trusts no forwarding header): the hello limits count it.
      source: helloSource(ctx.request.ip),
      ...(Number.isSafeInteger(length) && length >= 0 ? { bytes: length } : {}),
    });
  });
  // A closing hub answers the sessions waiting for signals at once instead of holding its close.
  router.app.addHook("preClose", async () => sync.releaseWaits());
}
