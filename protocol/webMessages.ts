import type { ProtocolReply, ProtocolRequest } from "./envelope.js";

/**
 * A module's `web.*` request, proxied by the hub through a proxy route of the device's project
 * (docs/sync-protocol.md, "Web requests"). It rides on an open session (continuous mode: the module
 * is online) and is answered once the route's endpoint answered, or the request failed.
 *
 * Fragmented uploads (`web.post`/`web.put` with `offset` and `total`) are assembled by the hub, as
 * the hosted hub does: each fragment is one message, answered `100` until the last one makes the
 * upload whole; only then is the one HTTP request made.
 */
export const WEB_METHODS = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "PATCH",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "CONNECT",
] as const;
export type WebMethod = (typeof WEB_METHODS)[number];

export const WEB_LIMITS = {
  /** Most bytes of an answer one reply carries (a module asks for its binary buffer at most). */
  answer: 256 * 1024,
  /** Largest fragmented upload, bytes (the spec's 10 MB). */
  upload: 10_000_000,
  /** Longest timeout a request may ask for, seconds (a route's own timeout is capped alike). */
  seconds: 600,
  /** Longest route alias, `name` (path and query) and content type. */
  route: 256,
  name: 4096,
  content: 256,
} as const;

/** What a `web` message asks for (the message is these fields with its envelope). */
export interface WebRequestFields {
  /** The proxy route's alias (web.* `route`). */
  readonly route: string;
  readonly method: WebMethod;
  /** Appended to the route's URL (path and query). */
  readonly name?: string;
  /** Content-Type of `data` (application/json when absent). */
  readonly content?: string;
  /** The request body (a JSON body as its UTF-8 text), base64. */
  readonly data?: string;
  /** MD5 of `data`, lowercase hex: the hub refuses data that does not match (`{web-payload}`). */
  readonly md5?: string;
  /** This is one fragment of an upload of `total` bytes, at `offset`. */
  readonly fragment?: { readonly offset: number; readonly total: number };
  /** A ranged read: `length` bytes of the resource from `offset` (an HTTP Range). */
  readonly range?: { readonly offset: number; readonly length: number };
  /** Timeout in seconds (the route's own timeout applies when shorter). */
  readonly seconds: number;
  /** Answer bytes the module takes; a longer answer comes back cut, `truncated` set. */
  readonly max: number;
}

export interface WebRequestMessage extends ProtocolRequest, WebRequestFields {
  readonly type: "web";
  readonly token: string;
}

export interface WebReply extends ProtocolReply {
  /** The endpoint's HTTP status; 100 for a fragment the hub holds until the upload is whole. */
  readonly status: number;
  /** The answer's Content-Type, when it had one. */
  readonly content?: string;
  /** The answer's body (at most `max` bytes, or the range asked for), base64. */
  readonly data?: string;
  /** The answer was longer than `max`. */
  readonly truncated?: boolean;
  /** Fragments: bytes of the upload the hub holds now. */
  readonly received?: number;
}

/** Error codes of the `web` message (besides `SYNC_ERRORS`). */
export const WEB_ERRORS = {
  /** No enabled proxy route with that alias serves the device. */
  noRoute: "web-route",
  /** No complete answer within the timeout. */
  timeout: "web-timeout",
  /** The endpoint could not be reached, or did not answer HTTP. */
  unreachable: "web-unreachable",
  /** The route's JSONata failed on the request or the answer. */
  transform: "web-transform",
  /** The data does not match its `md5` (the module's own tag for it). */
  payload: "web-payload",
  /** A fragment that does not continue its upload (a gap, another total, past the end). */
  fragment: "web-fragment",
} as const;
