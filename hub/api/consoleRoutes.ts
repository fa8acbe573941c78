import { csrfToken, sessionCookie, sessionCookieHeader } from "../auth/consoleSession.js";
import { consoleAsset, consolePage, CONSOLE_HEADERS } from "../console/consolePage.js";
import { HttpError } from "../HttpError.js";
import { registerConsoleProjectRoutes } from "./consoleProjectRoutes.js";
import { SESSION_TOKEN_MS, signIn } from "./authRoutes.js";
import type { HubRouter, PublicContext } from "./HubRouter.js";
import { CONSOLE_LOGIN } from "./requestBodies.js";

function secureHeaders(ctx: PublicContext): void {
  ctx.reply.headers(CONSOLE_HEADERS);
}

/**
 * Refuses a sign-in posted from a page of another origin (a login CSRF would sign the victim in
 * as the attacker): a browser names the page's origin in `Origin`.
 */
function sameOrigin(ctx: PublicContext): void {
  const origin = ctx.request.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = "";
  }
  if (host !== ctx.request.headers.host) {
    throw new HttpError(403, "The sign-in was refused: it came from a page of another origin");
  }
}

/**
 * The console: its page at `/` (and `/console`), its bundle under `/console/assets/`, and its
 * session API: sign in (`email` and `password`: the hub's username and password), who is signed
 * in (with the CSRF token changes must carry), sign out. Everything else the console does goes
 * through the hub's REST API and its role checks, with the session cookie.
 */
export function registerConsoleRoutes(router: HubRouter): void {
  const { store } = router.services;

  for (const path of ["/", "/console"]) {
    router.public("GET", path, async (ctx) => {
      secureHeaders(ctx);
      ctx.reply.type("text/html; charset=utf-8");
      return consolePage("hub");
    });
  }

  // Browsers ask for it; the console has none (a 204 rather than an error in the page's log).
  router.public("GET", "/favicon.ico", async (ctx) => void ctx.reply.code(204).send());

  router.public("GET", "/console/assets/:name", async (ctx) => {
    const name = ctx.params.name ?? "";
    const asset = await consoleAsset(name);
    if (!asset) throw new HttpError(404, `The console has no file ${name}`);
    secureHeaders(ctx);
    ctx.reply.type(asset.type);
    return asset.body;
  });

  router.public("POST", "/console/api/login", async (ctx) => {
    sameOrigin(ctx);
    const { email, password } = ctx.body(CONSOLE_LOGIN);
    const { secret, user } = await signIn(router.services, email, password, ctx.now);
    const secure = ctx.request.protocol === "https";
    ctx.reply.header("set-cookie", sessionCookieHeader(secret, SESSION_TOKEN_MS / 1000, secure));
    return { username: user.username, name: user.name, csrf: csrfToken(secret) };
  });

  router.account("GET", "/console/api/me", async (ctx) => {
    const principal = ctx.principal;
    const cookie = sessionCookie(ctx.request.headers);
    const csrf = cookie === undefined ? null : csrfToken(cookie);
    if (principal.kind === "oauth") return { username: `oauth client ${principal.clientId}`, name: "", csrf };
    const user = await store.accounts.getUser(principal.userUid);
    return { username: principal.username, name: user?.name ?? "", staff: principal.staff, csrf };
  });

  router.account("POST", "/console/api/logout", async (ctx) => {
    const principal = ctx.principal;
    if (principal.kind !== "user" || principal.via !== "session") {
      throw new HttpError(
        400,
        "Sign-out ends a login session: this request was made with another kind of token",
      );
    }
    await store.credentials.deleteToken(ctx.principal.tokenUid);
    ctx.reply.header("set-cookie", sessionCookieHeader("", 0, ctx.request.protocol === "https"));
    return { signed_out: true };
  });

  registerConsoleProjectRoutes(router);
}
