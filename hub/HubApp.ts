import { STATUS_CODES } from "node:http";
import Fastify, { type FastifyInstance, type FastifyServerFactory } from "fastify";
import type { Logger } from "pino";
import { jsonTooDeep, MAX_JSON_DEPTH } from "../core/jsonDepth.js";
import { registerAccountRoutes } from "./api/accountRoutes.js";
import { registerAuthRoutes } from "./api/authRoutes.js";
import { registerDescriptionRoutes } from "./api/descriptionRoutes.js";
import { registerDeviceRoutes } from "./api/deviceRoutes.js";
import { registerDfuRoutes } from "./api/dfuRoutes.js";
import { registerEnvRoutes } from "./api/envRoutes.js";
import { registerFirmwareRoutes } from "./api/firmwareRoutes.js";
import { registerFleetRoutes } from "./api/fleetRoutes.js";
import { HubRouter } from "./api/HubRouter.js";
import { registerNoteRoutes } from "./api/noteRoutes.js";
import { registerProjectRoutes } from "./api/projectRoutes.js";
import * as errors from "./errors.js";
import { HttpError, OAuthError } from "./HttpError.js";
import { createHubServices, type HubServices, type HubServicesOptions } from "./HubServices.js";
import { ServiceError } from "./ServiceError.js";
import { StoreError } from "./store/StoreError.js";

/** Largest JSON request body (descriptions have their own 10 MB limit). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * The services the routes use, given (shared with in-process callers) or built here from the
 * same options `createHubServices` takes (event subscriber faults then go to the request log).
 */
export type HubAppOptions = ({ services: HubServices } | HubServicesOptions) & {
  /** Structured request log; omitted or false logs nothing. */
  logger?: Logger | false;
  /** Lets the caller create the HTTP server (startHub serves the same app over HTTP and HTTPS). */
  serverFactory?: FastifyServerFactory;
};

/** A service's refusal in the API's words. */
function serviceFault(error: ServiceError): HttpError {
  switch (error.code) {
    case "product-elsewhere":
      return errors.productElsewhere(error.subject);
    case "fleet-elsewhere":
      return errors.fleetElsewhere(error.subject);
    case "device-elsewhere":
      return errors.deviceInOtherProject(error.subject);
    case "device-active":
      return errors.deviceAlreadyProvisioned(error.subject);
    case "invalid":
      return new HttpError(400, error.message);
  }
}

function fault(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ServiceError) return serviceFault(error);
  if (error instanceof StoreError) {
    switch (error.code) {
      case "note-exists":
      case "notefile-exists":
      case "conflict":
        return new HttpError(409, error.message);
      default:
        return new HttpError(404, error.message);
    }
  }
  const e = error as { code?: string; statusCode?: number; message?: string };
  switch (e.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return errors.unsupportedMediaType(undefined);
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return errors.bodyTooLarge(JSON_BODY_LIMIT);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return errors.bodyRequired();
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return errors.malformedJson(e.message ?? "");
  }
  if (error instanceof SyntaxError && e.statusCode === 400) return errors.malformedJson(e.message ?? "");
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return new HttpError(e.statusCode, e.message ?? STATUS_CODES[e.statusCode] ?? "Bad Request");
  }
  return errors.internalError();
}

/**
 * The hub's HTTP API as a fastify instance with every route registered (not yet listening).
 * Errors leave as `{err, code, status, request?, details?}`; the OAuth token endpoint answers
 * `{error, error_description}` as RFC 6749 asks.
 */
export async function buildHubApp(
  options: HubAppOptions,
): Promise<{ app: FastifyInstance; services: HubServices }> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
    bodyLimit: JSON_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    return503OnClosing: true,
    forceCloseConnections: "idle",
  }) as unknown as FastifyInstance;

  // Clients (the older official one among them) send `Content-Type: application/json` with an
  // empty body on POSTs that carry nothing: that is no body, not malformed JSON. Every JSON body of
  // every route passes here, so this is where nesting is capped: measured on the text before it
  // is parsed, so nothing deeper than the cap is ever built, stored or serialized.
  const json = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    if (jsonTooDeep(text)) return done(errors.jsonTooDeep(MAX_JSON_DEPTH), undefined);
    return json(request, text, done);
  });

  const services =
    "services" in options
      ? options.services
      : createHubServices({
          ...options,
          onListenerError:
            options.onListenerError ??
            ((error, event) => app.log.error({ err: error, event: event.uid }, "event subscriber failed")),
        });

  app.setErrorHandler((error, request, reply) => {
    const path = request.url.split("?")[0]!;
    if (path === "/oauth2/token" || path === "/oauth2/token/") {
      const oauth =
        error instanceof OAuthError
          ? error
          : new OAuthError(400, "invalid_request", (error as Error).message || "malformed request");
      if (!(error instanceof OAuthError) && (error as { statusCode?: number }).statusCode === undefined) {
        request.log.error({ err: error }, "token endpoint fault");
      }
      return reply
        .code(oauth.statusCode)
        .header("Cache-Control", "no-store")
        .send({ error: oauth.error, error_description: oauth.description });
    }
    let http = fault(error);
    if (http.statusCode === 413 && path.startsWith("/v1/description/")) {
      // The spec answers an invalid description write (too large included) with 400.
      http = errors.descriptionTooLarge(10 * 1024 * 1024);
    }
    if (http.statusCode >= 500) request.log.error({ err: error }, "request failed");
    const body: Record<string, unknown> = {
      err: http.message,
      code: http.statusCode,
      status: STATUS_CODES[http.statusCode] ?? "Error",
      request: request.url,
    };
    if (http.details) body.details = http.details;
    for (const [name, value] of Object.entries(http.headers ?? {})) reply.header(name, value);
    return reply.code(http.statusCode).type("application/json; charset=utf-8").send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const http = errors.routeNotFound(request.method, request.url);
    return reply
      .code(404)
      .send({ err: http.message, code: 404, status: STATUS_CODES[404], request: request.url });
  });

  const router = new HubRouter(app, services);
  registerAuthRoutes(router);
  registerAccountRoutes(router);
  registerDescriptionRoutes(router);
  registerProjectRoutes(router);
  registerFleetRoutes(router);
  registerDeviceRoutes(router);
  registerEnvRoutes(router);
  registerNoteRoutes(router);
  registerFirmwareRoutes(router);
  registerDfuRoutes(router);
  await app.ready();
  return { app, services };
}
