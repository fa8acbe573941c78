import type { FastifyInstance } from "fastify";
import { PROJECT_ROLES, roleAtLeast } from "../auth/Principal.js";
import { hashSecret, newSecret, sameHash, UNUSABLE_PASSWORD_HASH, verifyPassword } from "../auth/secrets.js";
import * as errors from "../errors.js";
import type { HubServices } from "../HubServices.js";
import type { ProjectRole, UserRecord } from "../store/records.js";
import type { HubRouter } from "./HubRouter.js";
import { LOGIN } from "./requestBodies.js";

/** Lifetime of an OAuth bearer token (spec Limits: 30 minutes). */
export const OAUTH_TOKEN_SECONDS = 30 * 60;
/** Lifetime of a login session token (ours; the hosted lifetime is not public). */
export const SESSION_TOKEN_MS = 30 * 86_400_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Checks a username and password (throttled per username after failures) and opens a login
 * session: its token, and the user. `POST /auth/login` and the console's sign-in both use it.
 */
export async function signIn(
  services: HubServices,
  username: unknown,
  password: unknown,
  now: number,
): Promise<{ secret: string; user: UserRecord }> {
  const { store, ids, logins } = services;
  if (typeof username !== "string" || typeof password !== "string" || username === "" || password === "") {
    throw errors.loginFieldsRequired();
  }
  // After repeated failures a username waits before any password is checked again.
  const wait = await logins.wait(username);
  if (wait > 0) throw errors.loginThrottled(Math.ceil(wait / 1000));
  const user = await store.accounts.getUserByUsername(username);
  // An unknown user costs the same scrypt work as a wrong password.
  const ok = await verifyPassword(password, user?.passwordHash ?? UNUSABLE_PASSWORD_HASH);
  if (!user || !ok) {
    await logins.failed(username);
    throw errors.loginFailed();
  }
  await logins.succeeded(username);
  const secret = newSecret("cardsim_session");
  await store.credentials.createToken({
    uid: ids.uuid(),
    kind: "session",
    hash: hashSecret(secret),
    userUid: user.uid,
    clientId: null,
    projectUid: null,
    role: null,
    scope: null,
    name: "login session",
    description: "",
    created: now,
    expires: now + SESSION_TOKEN_MS,
    suspended: false,
    lastUsed: null,
  });
  return { secret, user };
}

/** `POST /auth/login` and `POST /oauth2/token`. */
export function registerAuthRoutes(router: HubRouter): void {
  const { store, ids } = router.services;

  router.public("POST", "/auth/login", async (ctx) => {
    const { username, password } = ctx.body(LOGIN);
    const { secret } = await signIn(router.services, username, password, ctx.now);
    return { session_token: secret };
  });

  // The token endpoint reads its form itself, so that every malformed request gets the RFC 6749
  // error body rather than the API's generic one.
  router.app.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: 64 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    router.within(scope).public("POST", "/oauth2/token", async (ctx) => {
      const type = String(ctx.request.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim()
        .toLowerCase();
      if (type !== "application/x-www-form-urlencoded") throw errors.oauthNotForm();
      const form = new URLSearchParams(typeof ctx.request.body === "string" ? ctx.request.body : "");
      const single = (name: string): string | undefined => {
        const values = form.getAll(name);
        if (values.length > 1) throw errors.oauthRepeated(name);
        return values[0] === "" ? undefined : values[0];
      };
      const grant = single("grant_type");
      let clientId = single("client_id");
      let clientSecret = single("client_secret");
      const requested = single("scope");

      // RFC 6749 §2.3.1: client credentials may come as HTTP Basic instead of form fields.
      const authorization = ctx.request.headers.authorization;
      if (typeof authorization === "string" && /^basic\s+/i.test(authorization)) {
        if (clientId !== undefined || clientSecret !== undefined) throw errors.oauthTwoClientAuths();
        const decoded = Buffer.from(authorization.replace(/^basic\s+/i, ""), "base64").toString("utf8");
        const colon = decoded.indexOf(":");
        if (colon < 0) throw errors.oauthBadClient();
        try {
          clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
          clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
        } catch {
          throw errors.oauthBadClient();
        }
      }

      if (grant === undefined) throw errors.oauthMissing("grant_type");
      if (grant !== "client_credentials") throw errors.oauthGrantType(grant);
      if (clientId === undefined) throw errors.oauthMissing("client_id");
      if (clientSecret === undefined) throw errors.oauthMissing("client_secret");
      if (!UUID.test(clientId)) throw errors.oauthClientIdFormat();

      const client = await store.credentials.getOAuthClient(clientId.toLowerCase());
      if (!client || !sameHash(client.secretHash, hashSecret(clientSecret))) throw errors.oauthBadClient();

      // Scopes are project roles: a client may ask for its own role or a lower one.
      const allowed = PROJECT_ROLES.filter((r) => roleAtLeast(client.role, r));
      let granted: ProjectRole = client.role;
      let scopeText: string = client.role;
      if (requested !== undefined) {
        const asked = requested.split(" ").filter((s) => s !== "");
        if (asked.length === 0) throw errors.oauthScope(requested, allowed);
        for (const s of asked) {
          if (!(allowed as readonly string[]).includes(s)) throw errors.oauthScope(s, allowed);
        }
        granted = allowed.filter((r) => asked.includes(r)).at(-1)!;
        scopeText = [...new Set(asked)].join(" ");
      }

      const secret = newSecret("cardsim_oauth");
      await store.credentials.createToken({
        uid: ids.uuid(),
        kind: "oauth",
        hash: hashSecret(secret),
        userUid: null,
        clientId: client.clientId,
        projectUid: client.projectUid,
        role: granted,
        scope: scopeText,
        name: `oauth client ${client.name}`,
        description: "",
        created: ctx.now,
        expires: ctx.now + OAUTH_TOKEN_SECONDS * 1000,
        suspended: false,
        lastUsed: null,
      });
      await store.credentials.purgeExpiredTokens(ctx.now);
      ctx.reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
      return {
        access_token: secret,
        token_type: "bearer",
        expires_in: OAUTH_TOKEN_SECONDS,
        scope: scopeText,
      };
    });
  });
}
