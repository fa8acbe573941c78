import type { Clock } from "../../core/Clock.js";
import * as errors from "../errors.js";
import type { HubStore } from "../store/HubStore.js";
import type { ProjectRole } from "../store/records.js";
import { type Principal, roleAtLeast } from "./Principal.js";
import { checkCsrf, sessionCookie } from "./consoleSession.js";
import { hashSecret } from "./secrets.js";

/** Last-use times are written at most this often per token (a write per request would dominate). */
const TOUCH_INTERVAL_MS = 60_000;

type Headers = Record<string, string | string[] | undefined>;

/**
 * Verifies the token of a request: `Authorization: Bearer <token>`, or `X-Session-Token: <token>`
 * as the installable client (1.0.27-beta.5) sends it. Every check reads the store, so a token
 * suspended, deleted or expired (by the clock) stops working with the very next request, even
 * when another process (the `cardsim hub token` CLI) made the change.
 */
export class Authenticator {
  constructor(
    private readonly store: HubStore,
    private readonly clock: Clock,
  ) {}

  /** The token a request carries, or undefined. Throws 401 for a malformed Authorization header. */
  static tokenOf(headers: Headers): string | undefined {
    const authorization = headers.authorization;
    if (typeof authorization === "string" && authorization.trim() !== "") {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
      if (!m) throw errors.malformedAuthorization();
      return m[1];
    }
    const session = headers["x-session-token"];
    if (typeof session === "string" && session.trim() !== "") return session.trim();
    return undefined;
  }

  /**
   * The caller of a request. Without a token header, the console's session cookie is taken, and a
   * change (any `method` but GET, HEAD, OPTIONS) made with it must carry its CSRF token.
   */
  async authenticate(headers: Headers, method = "GET"): Promise<Principal> {
    let secret = Authenticator.tokenOf(headers);
    if (secret === undefined) {
      secret = sessionCookie(headers);
      if (secret !== undefined) checkCsrf(method, headers, secret);
    }
    if (secret === undefined) throw errors.missingToken();
    const token = await this.store.credentials.findTokenByHash(hashSecret(secret));
    if (!token) throw errors.unknownToken();
    const now = this.clock.now();
    if (token.expires !== null && now >= token.expires) throw errors.expiredToken();
    if (token.suspended) throw errors.suspendedToken();
    if (token.lastUsed === null || now - token.lastUsed >= TOUCH_INTERVAL_MS) {
      await this.store.credentials.touchToken(token.uid, now);
    }
    if (token.kind === "oauth") {
      if (!token.clientId || !token.projectUid || !token.role) throw errors.unknownToken();
      // A client deleted or demoted since the token was issued loses what it no longer has.
      const client = await this.store.credentials.getOAuthClient(token.clientId);
      if (!client || client.projectUid !== token.projectUid) throw errors.unknownToken();
      const role: ProjectRole = roleAtLeast(client.role, token.role) ? token.role : client.role;
      return {
        kind: "oauth",
        clientId: client.clientId,
        projectUid: client.projectUid,
        role,
        tokenUid: token.uid,
      };
    }
    const user = token.userUid ? await this.store.accounts.getUser(token.userUid) : undefined;
    if (!user) throw errors.unknownToken();
    return {
      kind: "user",
      userUid: user.uid,
      username: user.username,
      staff: user.staff,
      tokenUid: token.uid,
      via: token.kind === "pat" ? "pat" : "session",
    };
  }

  /** The principal's role in a project, undefined when it has none. */
  async roleIn(principal: Principal, projectUid: string): Promise<ProjectRole | undefined> {
    if (principal.kind === "oauth") return principal.projectUid === projectUid ? principal.role : undefined;
    return this.store.projects.getRole(projectUid, principal.userUid);
  }
}
