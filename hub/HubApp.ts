import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerFactory,
} from "fastify";
import type { Logger } from "pino";
import { jsonTooDeep, MAX_JSON_DEPTH } from "../core/jsonDepth.js";
import { registerAccountRoutes } from "./api/accountRoutes.js";
import { registerAuthRoutes } from "./api/authRoutes.js";
import { registerConsoleRoutes } from "./api/consoleRoutes.js";
import { registerStreamRoutes } from "./api/streamRoutes.js";
import { registerDescriptionRoutes } from "./api/descriptionRoutes.js";
import { registerDeviceRoutes } from "./api/deviceRoutes.js";
import { registerWebhookEventRoutes } from "./api/webhookEventRoutes.js";
import { registerIntegrationRoutes } from "./api/integrationRoutes.js";
import { registerDeviceSyncRoutes } from "./api/deviceSyncRoutes.js";
import { registerEnvRoutes } from "./api/envRoutes.js";
import { registerPinRoutes } from "./api/pinRoutes.js";
import { registerEventRoutes } from "./api/eventRoutes.js";
import { registerDfuRoutes } from "./api/dfuRoutes.js";
import { registerFirmwareRoutes } from "./api/firmwareRoutes.js";
import { registerFleetRoutes } from "./api/fleetRoutes.js";
import { HubRouter } from "./api/HubRouter.js";
import { registerNoteRoutes } from "./api/noteRoutes.js";
import { registerProjectRoutes } from "./api/projectRoutes.js";
import { registerUsageRoutes } from "./api/usageRoutes.js";
import { registerRouteRoutes } from "./api/routeRoutes.js";
import { registerMonitorRoutes } from "./api/monitorRoutes.js";
import { registerJobRoutes } from "./api/jobRoutes.js";
import * as errors from "./errors.js";
import { parsedHoldsLoneSurrogate } from "./jsonSurrogates.js";
import { HttpError, OAuthError } from "./HttpError.js";
import { createHubServices, type HubServices, type HubServicesOptions } from "./HubServices.js";
import { ServiceError } from "./ServiceError.js";
import { StoreError } from "./store/StoreError.js";

/** Largest JSON request body (descriptions have their own 10 MB limit). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** Longest path parameter (a UID, a notefile name, a note ID) the router matches. */
export const MAX_PARAM_LENGTH = 1024;

/** The API's error body: `{err, code, status, request?, details?}`. */
function errorBody(http: HttpError, url?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    err: http.message,
    code: http.statusCode,
    status: STATUS_CODES[http.statusCode] ?? "Error",
  };
  if (url !== undefined) body["request"] = url;
  if (http.details) body["details"] = http.details;
  return body;
}

function sendError(reply: FastifyReply, http: HttpError, url: string): FastifyReply {
  for (const [name, value] of Object.entries(http.headers ?? {})) reply.header(name, value);
  return reply.code(http.statusCode).type("application/json; charset=utf-8").send(errorBody(http, url));
}

/**
 * Answers what Node's HTTP parser refused before any route saw it (headers too large, characters
 * HTTP does not allow) in the API's error shape, then closes the connection. startHub puts it on
 * the HTTPS server as well.
 */
export function hubClientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const http =
    error.code === "HPE_HEADER_OVERFLOW"
      ? errors.headersTooLarge()
      : error.code === "HPE_INVALID_HEADER_TOKEN" || error.code === "HPE_INVALID_HEADER_VALUE"
        ? errors.badHeader()
        : error.code === "HPE_INVALID_URL"
          ? errors.badUrl("")
          : errors.malformedRequest();
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(errorBody(http));
  socket.end(
    `HTTP/1.1 ${http.statusCode} ${STATUS_CODES[http.statusCode]}\r\n` +
      "Connection: close\r\nContent-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

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

function fault(error: unknown, contentType: string | undefined): HttpError {
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
      return errors.unsupportedMediaType(contentType);
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
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // One line per request, at debug, from the onResponse hook below (not two at info).
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler: hubClientErrorHandler,
    // The router's own refusals (a path that is not percent-encoding, a parameter over the
    // limit) in the API's error shape.
    frameworkErrors: (error, request, reply) => {
      const http =
        error.code === "FST_ERR_BAD_URL"
          ? errors.badUrl(request.url)
          : error.code === "FST_ERR_MAX_PARAM_LENGTH"
            ? errors.pathParamTooLong(MAX_PARAM_LENGTH)
            : new HttpError(400, error.message);
      return sendError(reply, http, request.url);
    },
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
  // Read as bytes: their depth is measured faster than the text's, then decoded once.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    if (jsonTooDeep(body)) return done(errors.jsonTooDeep(MAX_JSON_DEPTH), undefined);
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    return json(request, text, (error, value) => {
      // SQLite stores text as UTF-8, where a lone surrogate has no form: refused rather than
      // stored as something other than what the caller was told was saved.
      if (!error && parsedHoldsLoneSurrogate(text, value)) return done(errors.loneSurrogate(), undefined);
      return done(error, value);
    });
  });

  // Without a logger there is no line to write: no hook.
  if (options.logger)
    app.addHook("onResponse", (request, reply, done) => {
      const ms = reply.elapsedTime.toFixed(1);
      request.log.debug(
        { status: reply.statusCode, ms: Number(ms) },
        `${request.method} ${request.url} ${reply.statusCode} ${ms} ms`,
      );
      done();
    });

  const services =
    "services" in options
      ? options.services
      : createHubServices({
          ...options,
          onListenerError:
            options.onListenerError ??
            ((error, event) => app.log.error({ err: error, event: event.uid }, "event subscriber failed")),
          onSyncFault:
            options.onSyncFault ??
            ((error, type) => app.log.error({ err: error, message: type }, "device sync message failed")),
          onRoutingError:
            options.onRoutingError ?? ((error) => app.log.error({ err: error }, "route delivery failed")),
          onFleetError:
            options.onFleetError ??
            ((error) => app.log.error({ err: error }, "smart fleet rules or fleet watchdogs failed")),
          onAutomationError:
            options.onAutomationError ??
            ((error) => app.log.error({ err: error }, "a monitor or a batch job failed")),
          onTransformError:
            options.onTransformError ??
            ((error, event) =>
              app.log.warn(
                { err: error, project: event.projectUid, file: event.file },
                "global event transformation failed: the event is stored as it came",
              )),
        });
  // Services made here end with the app: route deliveries in flight stop before the store closes.
  if (!("services" in options))
    app.addHook("onClose", () => {
      services.smartFleets.stop();
      services.watchdogs.stop();
      services.monitors.stop();
      services.jobs.stop();
      void services.integrations.stop();
      return services.routing.stop();
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
    let http = fault(error, request.headers["content-type"]);
    if (http.statusCode === 413 && path.startsWith("/v1/description/")) {
      // The spec answers an invalid description write (too large included) with 400.
      http = errors.descriptionTooLarge(10 * 1024 * 1024);
    }
    if (http.statusCode >= 500) request.log.error({ err: error }, "request failed");
    return sendError(reply, http, request.url);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, errors.routeNotFound(request.method, request.url), request.url),
  );

  const router = new HubRouter(app, services);
  registerAuthRoutes(router);
  registerAccountRoutes(router);
  registerDescriptionRoutes(router);
  registerProjectRoutes(router);
  registerFleetRoutes(router);
  registerDeviceRoutes(router);
  registerWebhookEventRoutes(router);
  registerEnvRoutes(router);
  registerPinRoutes(router);
  registerNoteRoutes(router);
  registerDeviceSyncRoutes(router);
  registerEventRoutes(router);
  registerUsageRoutes(router);
  registerRouteRoutes(router);
  registerFirmwareRoutes(router);
  registerDfuRoutes(router);
  registerMonitorRoutes(router);
  registerJobRoutes(router);
  registerStreamRoutes(router);
  registerConsoleRoutes(router);
  registerIntegrationRoutes(router);
  await app.ready();
  return { app, services };
}
