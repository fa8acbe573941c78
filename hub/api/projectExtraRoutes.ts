import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { jsonTooDeep, MAX_JSON_DEPTH } from "../../core/jsonDepth.js";
import * as errors from "../errors.js";
import { jsonataSyntaxFault } from "../integrations/Integrations.js";
import type { EventRecord } from "../store/records.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { notefileSchemas } from "./notefileSchemas.js";

/** Events GetNotefileSchemas reads at most (the newest), and how many per store query. */
export const SCHEMA_EVENTS = 10_000;
const BATCH = 1000;
/** Longest global transformation (characters), as a route's JSONata. */
const MAX_TRANSFORM = 65_536;

async function newestEvents(ctx: ProjectContext): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for (let offset = 0; offset < SCHEMA_EVENTS; offset += BATCH) {
    const page = await ctx.services.store.telemetry.listEvents(
      ctx.project.uid,
      {},
      { by: "modified", descending: true },
      { offset, limit: BATCH },
    );
    out.push(...page.items);
    if (!page.hasMore) break;
  }
  return out;
}

/**
 * The expression a SetGlobalEventTransformation body gives: the text itself (text/plain, as the
 * definition says), or a JSON string (what the older official client sends as application/json).
 */
function expressionOf(ctx: ProjectContext): string {
  const raw = typeof ctx.request.body === "string" ? ctx.request.body : "";
  let text = raw;
  if (/json/i.test(String(ctx.request.headers["content-type"] ?? ""))) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === "string") text = parsed;
    } catch {
      // Not JSON: the expression as sent.
    }
  }
  if (text.trim() === "") throw errors.bodyRequired();
  if (text.length > MAX_TRANSFORM) throw errors.bodyTooLarge(MAX_TRANSFORM);
  const fault = jsonataSyntaxFault(text);
  if (fault) throw errors.fieldInvalid("body", `is not a JSONata expression: ${fault}`);
  return text;
}

/**
 * Project operations beside the project's own record: deleting it, what the hub has seen of each
 * notefile, the AWS role configuration, and the project's global event transformation.
 */
export function registerProjectExtraRoutes(router: HubRouter): void {
  const { store, integrations } = router.services;
  const P = "/v1/projects/:projectUID";

  // DeleteProject: the project and everything of it (HubStore.deleteProject), its owners only.
  router.project("DELETE", P, "owner", async (ctx) => {
    await store.deleteProject(ctx.project.uid);
    integrations.globalTransformChanged(ctx.project.uid);
    return {};
  });

  router.project("GET", `${P}/schemas`, "viewer", async (ctx) => notefileSchemas(await newestEvents(ctx)));

  // This hub has no AWS account: the account ID is empty, and AWS routes are not delivered. The
  // external ID is the project's own (stable), as a trust policy would name it.
  router.project("GET", `${P}/aws-role-config`, "viewer", async (ctx) => ({
    aws_account_id: "",
    external_id: createHash("sha256")
      .update(`cardsim-aws-external-id\n${ctx.project.uid}`)
      .digest("hex")
      .slice(0, 32),
  }));

  const flag = (enabled: boolean) => async (ctx: ProjectContext) => {
    await store.integrations.setGlobalTransform(ctx.project.uid, { enabled }, ctx.now);
    integrations.globalTransformChanged(ctx.project.uid);
    return {};
  };
  router.project("POST", `${P}/global-transformation/enable`, "developer", flag(true));
  router.project("POST", `${P}/global-transformation/disable`, "developer", flag(false));

  // The expression is the body itself (text/plain), so this route reads its body as text.
  router.app.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    // A JSON body is held to the nesting limit every JSON body of the hub is (HubApp.ts).
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: MAX_TRANSFORM * 4 }, (req, body, done) =>
      /json/i.test(String(req.headers["content-type"] ?? "")) && jsonTooDeep(String(body))
        ? done(errors.jsonTooDeep(MAX_JSON_DEPTH), undefined)
        : done(null, body),
    );
    router.within(scope).project("POST", `${P}/global-transformation`, "developer", async (ctx) => {
      const transform = expressionOf(ctx);
      await store.integrations.setGlobalTransform(ctx.project.uid, { transform }, ctx.now);
      integrations.globalTransformChanged(ctx.project.uid);
      return {};
    });
  });
}
