import { HttpError, OAuthError } from "./HttpError.js";

/**
 * Every error text the hub's HTTP API sends, in one place. Where the hosted service's wording is
 * public (reference/notehub-api.md §1.2, notelib's notefile errors) it is followed; the rest is
 * ours and documented in docs/hub.md. Clients test the status code, never the prose.
 */

/** Keeps echoed input short and printable. */
function echo(text: string, max = 80): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

const bad = (text: string, details?: Record<string, unknown>): HttpError => new HttpError(400, text, details);

// --- authentication ----------------------------------------------------------------------------
const AUTH_HEADERS = { "WWW-Authenticate": 'Bearer realm="cardsim hub"' };
export const missingToken = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: send a token as 'Authorization: Bearer <token>' (or 'X-Session-Token: <token>')",
    undefined,
    AUTH_HEADERS,
  );
export const malformedAuthorization = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: the Authorization header must be 'Bearer <token>'",
    undefined,
    AUTH_HEADERS,
  );
export const unknownToken = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: the access token is not valid",
    undefined,
    AUTH_HEADERS,
  );
export const expiredToken = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: the access token has expired",
    undefined,
    AUTH_HEADERS,
  );
export const suspendedToken = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: the access token is suspended",
    undefined,
    AUTH_HEADERS,
  );
export const loginFailed = (): HttpError =>
  new HttpError(401, "login failed: unknown username or wrong password");
export const loginThrottled = (retryAfterSeconds: number): HttpError =>
  new HttpError(
    429,
    `too many failed logins for this username: try again in ${retryAfterSeconds} s`,
    undefined,
    { "Retry-After": String(retryAfterSeconds) },
  );
const PIN_HEADERS = { "WWW-Authenticate": 'X-Auth-Token realm="cardsim hub device PIN"' };
export const missingPin = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: send the device's PIN as 'X-Auth-Token: <pin>'",
    undefined,
    PIN_HEADERS,
  );
export const wrongPin = (): HttpError =>
  new HttpError(
    401,
    "The request could not be authorized: the PIN is not this device's (a developer issues one with POST /v1/projects/{projectUID}/devices/{deviceUID}/pin)",
    undefined,
    PIN_HEADERS,
  );
export const pinThrottled = (retryAfterSeconds: number): HttpError =>
  new HttpError(429, `too many wrong PINs for this device: try again in ${retryAfterSeconds} s`, undefined, {
    "Retry-After": String(retryAfterSeconds),
  });
export const loginFieldsRequired = (): HttpError =>
  bad("login requires a JSON body with string fields username and password");

// --- authorization -----------------------------------------------------------------------------
export const roleTooLow = (needed: string, have: string | undefined): HttpError =>
  new HttpError(
    403,
    have
      ? `The requested action was forbidden: it requires the ${needed} role on this project and you are ${have}`
      : "The requested action was forbidden: you are not a member of this project",
  );
export const staffOnly = (): HttpError =>
  new HttpError(403, "The requested action was forbidden: only service staff may change descriptions");
export const notOrgMember = (): HttpError =>
  new HttpError(403, "The requested action was forbidden: you are not a member of this organization");
export const orgRoleTooLow = (): HttpError =>
  new HttpError(
    403,
    "The requested action was forbidden: your role in this billing account may not create projects",
  );
export const userOnly = (): HttpError =>
  new HttpError(
    403,
    "The requested action was forbidden: an OAuth client token may not do this; use a personal access token",
  );

// --- rate limits -------------------------------------------------------------------------------
export const rateLimited = (retryAfterSeconds: number, window: "minute" | "day", limit: number): HttpError =>
  new HttpError(
    429,
    `rate limit exceeded: at most ${limit} requests per ${window} per billing account; retry in ${retryAfterSeconds} s`,
    undefined,
    { "Retry-After": String(retryAfterSeconds) },
  );

// --- routing and request shape -----------------------------------------------------------------
export const routeNotFound = (method: string, url: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: no ${method} ${echo(url)}`);
export const unsupportedMediaType = (type: string | undefined): HttpError =>
  new HttpError(415, `unsupported Content-Type ${type ? echo(type) : "(none)"}: send application/json`);
export const badUrl = (url: string): HttpError =>
  bad(`the request path ${echo(url)} is not valid percent-encoding (escape % as %25)`);
export const pathParamTooLong = (max: number): HttpError =>
  new HttpError(414, `a path parameter is longer than the ${max} characters the hub accepts`);
export const headersTooLarge = (): HttpError =>
  new HttpError(431, "the request's headers are larger than the hub accepts: send fewer or shorter ones");
export const badHeader = (): HttpError =>
  bad("a request header has a name or value with characters HTTP does not allow");
export const malformedRequest = (): HttpError => bad("malformed HTTP request");
export const loneSurrogate = (): HttpError =>
  bad(
    "request body has a string with a lone UTF-16 surrogate (\\ud800-\\udfff without its pair): it cannot be stored as sent",
  );
export const bodyTooLarge = (limit: number): HttpError =>
  new HttpError(413, `request body too large: at most ${limit} bytes`);
export const malformedJson = (detail: string): HttpError =>
  bad(`request body is not valid JSON: ${echo(detail)}`);
export const jsonTooDeep = (max: number): HttpError =>
  bad(`request body is nested too deeply: JSON may be nested at most ${max} levels of objects and arrays`);
export const bodyMustBeObject = (): HttpError => bad("request body must be a JSON object");
export const bodyRequired = (): HttpError => bad("request body is required (a JSON object)");
export const fieldRequired = (field: string): HttpError => bad(`${field} is required`);
export const fieldInvalid = (field: string, why: string): HttpError => bad(`${field} ${why}`);
export const queryInteger = (name: string): HttpError => bad(`query argument ${name} must be an integer`);
export const queryBoolean = (name: string): HttpError => bad(`query argument ${name} must be true or false`);
export const queryRange = (name: string, min: number, max: number): HttpError =>
  bad(`query argument ${name} must be between ${min} and ${max}`);
export const queryOneOf = (name: string, allowed: readonly string[]): HttpError =>
  bad(`query argument ${name} must be one of ${allowed.join(", ")}`);
export const queryDate = (name: string): HttpError =>
  bad(`query argument ${name} must be UNIX epoch seconds or an ISO 8601 date-time`);
export const querySingle = (name: string): HttpError => bad(`query argument ${name} may be given only once`);
export const queryRequired = (name: string): HttpError => bad(`query argument ${name} is required`);
export const queryInvalid = (name: string, why: string): HttpError => bad(`query argument ${name} ${why}`);
export const queryDateBeforeEpoch = (name: string): HttpError =>
  bad(`query argument ${name} must not be before 1970-01-01 (epoch second 0)`);
export const queryDateOrder = (): HttpError => bad("query argument endDate must not be before startDate");
export const firmwareFilter = (value: string): HttpError =>
  bad(`firmware filter "${echo(value)}" has no numeric version (e.g. 8.1 or 8.1.3)`);

// --- resources ---------------------------------------------------------------------------------
const notFound = (what: string, id: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: ${what} ${echo(id)}`);
export const projectNotFound = (uid: string): HttpError => notFound("project", uid);
export const productNotFound = (uid: string): HttpError => notFound("product", uid);
export const fleetNotFound = (uid: string): HttpError => notFound("fleet", uid);
export const deviceNotFound = (uid: string): HttpError => notFound("device", uid);
export const organizationNotFound = (uid: string): HttpError => notFound("organization", uid);
export const billingAccountNotFound = (uid: string): HttpError => notFound("billing account", uid);
export const descriptionNotFound = (name: string): HttpError => notFound("description", name);
export const envVarNotFound = (key: string): HttpError => notFound("environment variable", key);
export const eventNotFound = (uid: string): HttpError => notFound("event", uid);
export const hubRouteNotFound = (uid: string): HttpError => notFound("route", uid);
export const monitorNotFound = (uid: string): HttpError => notFound("monitor", uid);
export const jobNotFound = (uid: string): HttpError => notFound("job", uid);
export const jobRunNotFound = (uid: string): HttpError => notFound("job run", uid);
export const publicKeyNotFound = (uid: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: device ${echo(uid)} has no public key yet`);
export const serialAmbiguous = (sn: string, count: number): HttpError =>
  bad(`serial number ${echo(sn)} matches ${count} devices; use the DeviceUID`);
export const invalidDeviceUid = (uid: string): HttpError =>
  bad(`${echo(uid)} is not a DeviceUID (dev:<digits or hex>) or a serial number (sn:<serial>)`);
export const invalidProductUid = (uid: string): HttpError =>
  bad(`${echo(uid)} is not a ProductUID (product:<reverse-domain>:<name>)`);
export const productElsewhere = (uid: string): HttpError =>
  bad(`product ${echo(uid)} is not a product of this project`);
export const fleetElsewhere = (uid: string): HttpError =>
  bad(`fleet ${echo(uid)} is not a fleet of this project`);
export const conflict = (text: string): HttpError =>
  new HttpError(409, `The resource could not be created due to a conflict: ${text}`);
export const deviceAlreadyProvisioned = (uid: string): HttpError =>
  conflict(
    `device ${echo(uid)} is already provisioned and has connected; delete it first to provision it again`,
  );
export const deviceInOtherProject = (uid: string): HttpError =>
  conflict(`device ${echo(uid)} belongs to another project`);

// --- notefiles (interface B rules on the hub replica) ------------------------------------------
export const notefileNameInvalid = (name: string): HttpError =>
  bad(
    `notefile name ${echo(name)} is not valid: it needs a name and one of the extensions .qi, .qis, .db, .dbs`,
  );
export const notefileTypeNotRecognized = (name: string): HttpError =>
  bad(`notefile type not recognized: ${echo(name)} (use .qi, .qis, .db or .dbs)`);
export const notefileLocalOnly = (name: string): HttpError =>
  bad(`${echo(name)} is a local-only notefile (.dbx): it never leaves the module, so the hub has none`);
export const notefileOutbound = (name: string): HttpError =>
  bad(
    `${echo(name)} is an outbound queue: its notes arrive as events (read them with the events API), the hub keeps no notes of it`,
  );
export const notefileReserved = (name: string): HttpError =>
  bad(`${echo(name)} is a reserved notefile name (names starting with _ belong to the system)`);
export const noteIdRequired = (name: string): HttpError =>
  bad(`note ID is required when using a database notefile (${echo(name)})`);
export const noteIdNotAllowed = (name: string): HttpError =>
  bad(`note ID should not be specified when using a queue notefile (${echo(name)})`);
export const noteIdInvalid = (id: string): HttpError =>
  bad(`note ID ${echo(id)} is not valid: 1 to 256 characters without control characters or commas`);
export const noteNeedsContent = (): HttpError =>
  bad("a note needs a body (JSON object) or a payload (base64)");
export const payloadNotBase64 = (): HttpError => bad("payload must be base64 text");
export const noteExists = (text: string): HttpError => new HttpError(409, text);
export const noteMissing = (text: string): HttpError => new HttpError(404, text);
export const notefileExists = (text: string): HttpError => new HttpError(409, text);
export const notefileMissing = (text: string): HttpError => new HttpError(404, text);
export const trackerInvalid = (tracker: string): HttpError =>
  bad(`cannot use this tracker name: ${echo(tracker)} (names starting with _ are reserved)`);

// --- descriptions ------------------------------------------------------------------------------
export const descriptionNameInvalid = (): HttpError =>
  bad("description name must be 1 to 256 printable characters");
export const descriptionTooLarge = (limit: number): HttpError =>
  bad(`description content too large: at most ${limit} bytes (10 MB)`);
export const descriptionEmpty = (): HttpError => bad("description content is empty");

// --- server ------------------------------------------------------------------------------------
export const internalError = (): HttpError => new HttpError(500, "An internal server error occurred");

// --- OAuth 2.0 token endpoint (RFC 6749 §5.2 bodies) --------------------------------------------
export const oauthNotForm = (): OAuthError =>
  new OAuthError(400, "invalid_request", "parameters must be sent as application/x-www-form-urlencoded");
export const oauthMissing = (name: string): OAuthError =>
  new OAuthError(400, "invalid_request", `missing required parameter: ${name}`);
export const oauthRepeated = (name: string): OAuthError =>
  new OAuthError(400, "invalid_request", `parameter given more than once: ${name}`);
export const oauthClientIdFormat = (): OAuthError =>
  new OAuthError(400, "invalid_request", "client_id must be a UUID");
export const oauthTwoClientAuths = (): OAuthError =>
  new OAuthError(
    400,
    "invalid_request",
    "client credentials given both in the Authorization header and in the body",
  );
export const oauthGrantType = (grant: string): OAuthError =>
  new OAuthError(
    400,
    "unsupported_grant_type",
    `grant_type ${echo(grant)} is not supported; use client_credentials`,
  );
export const oauthBadClient = (): OAuthError =>
  new OAuthError(
    401,
    "invalid_client",
    "client authentication failed: unknown client_id or wrong client_secret",
  );
export const oauthScope = (scope: string, allowed: readonly string[]): OAuthError =>
  new OAuthError(
    403,
    "invalid_scope",
    `scope ${echo(scope)} is not granted to this client; allowed: ${allowed.join(" ")}`,
  );
