import { roleAtLeast } from "../auth/Principal.js";
import * as errors from "../errors.js";
import type { ProductRecord, ProjectRecord } from "../store/records.js";
import { StoreError } from "../store/StoreError.js";
import type { AccountContext, HubRouter } from "./HubRouter.js";
import { CREATE_PRODUCT, CREATE_PROJECT } from "./requestBodies.js";
import { productView, projectView } from "./views.js";

export const PRODUCT_UID = /^product:[A-Za-z0-9._-]+:[A-Za-z0-9._-]+$/;

/**
 * A new project of the billing account `orgUid`, the caller (a user who may create projects
 * there) its owner: for Create Project and Clone Project.
 */
export async function createOwnedProject(
  ctx: AccountContext,
  label: string,
  orgUid: string,
): Promise<ProjectRecord> {
  if (ctx.principal.kind !== "user") throw errors.userOnly();
  const { store, ids } = ctx.services;
  const org = await store.accounts.getOrganization(orgUid);
  if (!org) throw errors.billingAccountNotFound(orgUid);
  const orgRole = await store.accounts.getOrgRole(orgUid, ctx.principal.userUid);
  if (!orgRole) throw errors.notOrgMember();
  if (orgRole === "org_member") throw errors.orgRoleTooLow();
  const user = (await store.accounts.getUser(ctx.principal.userUid))!;
  const contact = { name: user.name, email: user.email, role: "owner", organization: org.name };
  const project: ProjectRecord = {
    uid: ids.projectUid(),
    label,
    orgUid,
    created: ctx.now,
    administrativeContact: contact,
    technicalContact: contact,
  };
  await store.projects.createProject(project);
  await store.projects.setMember(project.uid, user.uid, "owner");
  return project;
}

/** Projects, their members and products. */
export function registerProjectRoutes(router: HubRouter): void {
  const { store } = router.services;

  router.account("GET", "/v1/projects", async (ctx) => {
    if (ctx.principal.kind === "oauth") {
      const project = await store.projects.getProject(ctx.principal.projectUid);
      return { projects: project ? [projectView(project, ctx.principal.role)] : [] };
    }
    const mine = await store.projects.listProjectsOf(ctx.principal.userUid);
    return { projects: mine.map(({ project, role }) => projectView(project, role)) };
  });

  router.account(
    "POST",
    "/v1/projects",
    async (ctx) => {
      if (ctx.principal.kind !== "user") throw errors.userOnly();
      const { label, billing_account_uid: orgUid } = ctx.body(CREATE_PROJECT);
      const project = await createOwnedProject(ctx, label, orgUid);
      return projectView(project, "owner");
    },
    { status: 201 },
  );

  router.project("GET", "/v1/projects/:projectUID", "viewer", async (ctx) =>
    projectView(ctx.project, ctx.role),
  );

  router.project("GET", "/v1/products/:productUID/project", "viewer", async (ctx) => {
    if (!ctx.params.productUID!.startsWith("product:")) throw errors.productNotFound(ctx.params.productUID!);
    return projectView(ctx.project, ctx.role);
  });

  router.project("GET", "/v1/projects/:projectUID/members", "viewer", async (ctx) => {
    const members = await store.projects.listMembers(ctx.project.uid);
    // Addresses are shown to owners only (ProjectMember.email).
    const owner = roleAtLeast(ctx.role, "owner");
    return {
      members: members.map(({ user, role }) => ({ name: user.name, email: owner ? user.email : "", role })),
    };
  });

  router.project("GET", "/v1/projects/:projectUID/products", "viewer", async (ctx) => ({
    products: (await store.projects.listProducts(ctx.project.uid)).map(productView),
  }));

  router.project(
    "POST",
    "/v1/projects/:projectUID/products",
    "developer",
    async (ctx) => {
      const body = ctx.body(CREATE_PRODUCT);
      let uid = body.product_uid.trim();
      if (!uid.startsWith("product:")) uid = `product:${uid}`;
      if (!PRODUCT_UID.test(uid)) throw errors.invalidProductUid(uid);
      const label = body.label;
      const fleets = body.auto_provision_fleets ?? null;
      for (const fleet of fleets ?? []) {
        const f = await store.projects.getFleet(fleet);
        if (!f || f.projectUid !== ctx.project.uid) throw errors.fleetElsewhere(fleet);
      }
      const product: ProductRecord = {
        uid,
        projectUid: ctx.project.uid,
        label,
        disableDevicesByDefault: body.disable_devices_by_default ?? false,
        autoProvisionFleets: fleets,
        created: ctx.now,
      };
      try {
        await store.projects.createProduct(product);
      } catch (e) {
        if (e instanceof StoreError && e.code === "conflict")
          throw errors.conflict(`product ${uid} already exists`);
        throw e;
      }
      return productView(product);
    },
    { status: 201 },
  );

  router.project("DELETE", "/v1/projects/:projectUID/products/:productUID", "developer", async (ctx) => {
    const product = await store.projects.getProduct(ctx.params.productUID!);
    if (!product || product.projectUid !== ctx.project.uid)
      throw errors.productNotFound(ctx.params.productUID!);
    await store.projects.deleteProduct(product.uid);
    ctx.reply.code(204);
    return undefined;
  });
}
