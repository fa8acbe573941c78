import type { JsonObject } from "../../core/json.js";
import type { Principal } from "../auth/Principal.js";
import * as errors from "../errors.js";
import { HttpError } from "../HttpError.js";
import { SECRET_NAME } from "../integrations/Integrations.js";
import type { SecretRecord } from "../store/IntegrationStore.js";
import { body, text } from "./bodySchema.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { isoTime } from "./views.js";

/** Longest secret value kept (characters). */
const MAX_SECRET = 64 * 1024;

export const CREATE_SECRET = body({
  name: text({ required: true, max: 128 }),
  value: text({ required: true, max: MAX_SECRET }),
});
export const UPDATE_SECRET = body({ value: text({ required: true, max: MAX_SECRET }) });

/** The actor a secret's record names: the user's name, or the OAuth client's ID. */
const actor = (p: Principal): string => (p.kind === "user" ? p.username : `oauth:${p.clientId}`);

/** ProjectSecret: names and dates only; the value never leaves the hub. */
function secretView(s: SecretRecord): JsonObject {
  return {
    name: s.name,
    created: isoTime(s.created),
    created_by: s.createdBy,
    ...(s.modified !== null ? { modified: isoTime(s.modified) } : {}),
    ...(s.modifiedBy !== null ? { modified_by: s.modifiedBy } : {}),
  };
}

const secretNotFound = (name: string): HttpError =>
  new HttpError(404, `The requested resource could not be found: secret ${JSON.stringify(name)}`);

function checkName(name: string, field: string): string {
  if (!SECRET_NAME.test(name))
    throw errors.fieldInvalid(field, "must be 1 to 128 letters, digits or underscores");
  return name;
}

/**
 * Project secrets: written, replaced and deleted here, never read back. The value is sealed
 * (AES-256-GCM, the hub's key in its directory) before it is stored; routes use it where their
 * URL or header values say `{{secret.NAME}}` (Integrations.resolveSecrets).
 */
export function registerSecretRoutes(router: HubRouter): void {
  const { store, integrations } = router.services;
  const secrets = () => store.integrations;
  const seal = (ctx: ProjectContext, name: string, value: string): string =>
    integrations.box.seal(ctx.project.uid, name, value);

  router.project("GET", "/v1/projects/:projectUID/secrets", "viewer", async (ctx) => ({
    secrets: (await secrets().listSecrets(ctx.project.uid)).map(secretView),
  }));
  router.project(
    "POST",
    "/v1/projects/:projectUID/secrets",
    "developer",
    async (ctx) => {
      const { name, value } = ctx.body(CREATE_SECRET);
      checkName(name, "name");
      const record: SecretRecord = {
        projectUid: ctx.project.uid,
        name,
        created: ctx.now,
        createdBy: actor(ctx.principal),
        modified: null,
        modifiedBy: null,
      };
      if (!(await secrets().createSecret(record, seal(ctx, name, value)))) {
        throw errors.conflict(`a secret named ${name} exists in the project already`);
      }
      return secretView(record);
    },
    { status: 201 },
  );
  router.project("PUT", "/v1/projects/:projectUID/secrets/:secretName", "developer", async (ctx) => {
    const name = checkName(ctx.params.secretName!, "secretName");
    const { value } = ctx.body(UPDATE_SECRET);
    const updated = await secrets().updateSecret(
      ctx.project.uid,
      name,
      seal(ctx, name, value),
      ctx.now,
      actor(ctx.principal),
    );
    if (!updated) throw secretNotFound(name);
    return secretView(updated);
  });
  router.project("DELETE", "/v1/projects/:projectUID/secrets/:secretName", "developer", async (ctx) => {
    const name = checkName(ctx.params.secretName!, "secretName");
    if (!(await secrets().deleteSecret(ctx.project.uid, name))) throw secretNotFound(name);
    ctx.reply.code(204);
    return undefined;
  });
}
