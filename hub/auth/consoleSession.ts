import { createHmac, timingSafeEqual } from "node:crypto";
import { HttpError } from "../HttpError.js";

/**
 * The console's sign-in: the login session token rides in an HttpOnly, SameSite=Strict cookie,
 * and every change made with it must also carry the session's CSRF token in a header. The CSRF
 * token is derived from the session token (an HMAC), so the hub keeps nothing more; a page of
 * another site can neither read the cookie nor the token (the console hands it out from a JSON
 * read, which the same-origin rule keeps from other sites).
 */

/** The cookie that carries the console's login session token. */
export const SESSION_COOKIE = "cardsim_session";
/** The header a change made with the cookie must carry its CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** Methods that change nothing: no CSRF token needed. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

type Headers = Record<string, string | string[] | undefined>;

/** The session token of the console cookie, when the request carries one. */
export function sessionCookie(headers: Headers): string | undefined {
  const cookie = headers.cookie;
  if (typeof cookie !== "string") return undefined;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === "" ? undefined : value;
  }
  return undefined;
}

/** The CSRF token of a login session token. */
export function csrfToken(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("cardsim console csrf").digest("base64url");
}

/** Refuses (403) a change made with the cookie that does not carry the session's CSRF token. */
export function checkCsrf(method: string, headers: Headers, sessionToken: string): void {
  if (SAFE.has(method.toUpperCase())) return;
  const sent = headers[CSRF_HEADER];
  const expected = Buffer.from(csrfToken(sessionToken));
  const given = Buffer.from(typeof sent === "string" ? sent : "");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(
      403,
      `The change was refused: a change made with the console's session cookie must carry its CSRF token in the ${CSRF_HEADER} header (sign in again in the console)`,
    );
  }
}

/** The Set-Cookie value that keeps `token` for `maxAgeSec` (0 clears it). */
export function sessionCookieHeader(token: string, maxAgeSec: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${Math.max(0, Math.floor(maxAgeSec))}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}
