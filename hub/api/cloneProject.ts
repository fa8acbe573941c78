import type { JsonObject } from "../../core/json.js";
import { newFleet, type ProjectRecord } from "../store/records.js";
import { body, flag, text } from "./bodySchema.js";
import type { HubRouter, ProjectContext } from "./HubRouter.js";
import { createOwnedProject } from "./projectRoutes.js";
import { projectView } from "./views.js";

export const CLONE_PROJECT = body({
  label: text({ required: true, max: 256 }),
  billing_account_uid: text({ required: true }),
  disable_clone_fleets: flag(),
  disable_clone_routes: flag(),
});

/** The project's fleets copied into `to` (with their variables); old fleet UID to new. */
async function cloneFleets(ctx: ProjectContext, to: ProjectRecord): Promise<Map<string, string>> {
  const { store, ids } = ctx.services;
  const renamed = new Map<string, string>();
  for (const fleet of await store.projects.listFleets(ctx.project.uid)) {
    const uid = ids.fleetUid();
    const { uid: _old, projectUid: _from, label, created: _created, ...settings } = fleet;
    await store.projects.createFleet(
      newFleet({ uid, projectUid: to.uid, label, created: ctx.now }, settings),
    );
    const vars = await store.env.get({ kind: "fleet", uid: fleet.uid });
    if (vars.length > 0)
      await store.env.set(
        { kind: "fleet", uid },
        Object.fromEntries(vars.map((v) => [v.key, v.value])),
        ctx.now,
      );
    renamed.set(fleet.uid, uid);
  }
  return renamed;
}

/** The project's routes copied into `to`, their fleet filters naming the copied fleets (or none). */
async function cloneRoutes(
  ctx: ProjectContext,
  to: ProjectRecord,
  fleets: Map<string, string>,
): Promise<void> {
  const { store, routing } = ctx.services;
  for (const route of await store.routes.listRoutes(ctx.project.uid)) {
    let settings = JSON.stringify(route.settings);
    for (const [from, into] of fleets)
      settings = settings.split(JSON.stringify(from)).join(JSON.stringify(into));
    const copy: JsonObject = {
      label: route.label,
      type: route.type,
      disabled: route.disabled,
      [route.schema]: JSON.parse(settings),
    };
    if (route.notes !== null) copy["notes"] = route.notes;
    await routing.create(to.uid, copy);
  }
}

/** The project's secrets, webhooks and global transformation copied into `to` (secrets sealed again for it). */
async function cloneIntegrations(ctx: ProjectContext, to: ProjectRecord): Promise<void> {
  const { store, integrations } = ctx.services;
  const box = integrations.box;
  for (const secret of await store.integrations.listSecrets(ctx.project.uid)) {
    const sealed = await store.integrations.getSecretCiphertext(ctx.project.uid, secret.name);
    const value = sealed === undefined ? undefined : box.open(ctx.project.uid, secret.name, sealed);
    if (value === undefined) continue;
    await store.integrations.createSecret(
      { ...secret, projectUid: to.uid },
      box.seal(to.uid, secret.name, value),
    );
  }
  for (const webhook of await store.integrations.listWebhooks(ctx.project.uid)) {
    await store.integrations.putWebhook({
      ...webhook,
      projectUid: to.uid,
      created: ctx.now,
      modified: ctx.now,
    });
  }
  const transform = await store.integrations.getGlobalTransform(ctx.project.uid);
  if (transform) {
    await store.integrations.setGlobalTransform(
      to.uid,
      { transform: transform.transform, enabled: transform.enabled },
      ctx.now,
    );
  }
}

/**
 * CloneProject: a new project in the billing account given, the caller its owner, with the
 * source's project variables, fleets (and their variables) and routes unless the body says not
 * to, and its secrets, webhooks and global transformation. Devices, their data, products (their
 * UIDs are the hub's alone) and members are not copied.
 */
export function registerCloneProjectRoute(router: HubRouter): void {
  router.project(
    "POST",
    "/v1/projects/:projectUID/clone",
    // It copies the whole project, secrets and routes with it: the source's owners only.
    "owner",
    async (ctx) => {
      const given = ctx.body(CLONE_PROJECT);
      const { store } = ctx.services;
      const project = await store.transaction(async () => {
        const to = await createOwnedProject(ctx, given.label, given.billing_account_uid);
        const vars = await store.env.get({ kind: "project", uid: ctx.project.uid });
        if (vars.length > 0)
          await store.env.set(
            { kind: "project", uid: to.uid },
            Object.fromEntries(vars.map((v) => [v.key, v.value])),
            ctx.now,
          );
        const fleets = given.disable_clone_fleets ? new Map<string, string>() : await cloneFleets(ctx, to);
        if (!given.disable_clone_routes) await cloneRoutes(ctx, to, fleets);
        await cloneIntegrations(ctx, to);
        return to;
      });
      return projectView(project, "owner");
    },
    { status: 201 },
  );
}
