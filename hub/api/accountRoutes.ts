import type { Principal } from "../auth/Principal.js";
import * as errors from "../errors.js";
import type { HttpError } from "../HttpError.js";
import type { HubStore } from "../store/HubStore.js";
import type { OrganizationRecord, OrgRole } from "../store/records.js";
import type { AccountContext, HubRouter } from "./HubRouter.js";
import { isoTime } from "./views.js";
import type { JsonObject } from "../../core/json.js";

const DAY_MS = 86_400_000;
/** Longest balance history one request may ask for. */
const MAX_HISTORY_DAYS = 366;

/** Billing-account names of the organization roles (the deprecated view keeps its own words). */
const BILLING_ROLE: Record<OrgRole, string> = {
  org_admin: "billing_admin",
  billing_manager: "billing_manager",
  project_creator: "project_creator",
  org_member: "billing_member",
};

function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The organizations a caller can see, with its role in each. */
async function organizationsOf(
  store: HubStore,
  principal: Principal,
): Promise<{ org: OrganizationRecord; role: OrgRole }[]> {
  if (principal.kind === "user") return store.accounts.listOrganizationsOf(principal.userUid);
  // An OAuth client sees the organization of its project, as a member.
  const project = await store.projects.getProject(principal.projectUid);
  const org = project && (await store.accounts.getOrganization(project.orgUid));
  return org ? [{ org, role: "org_member" }] : [];
}

async function organizationFor(
  store: HubStore,
  principal: Principal,
  uid: string,
  notFound: (uid: string) => HttpError,
): Promise<OrganizationRecord> {
  const org = await store.accounts.getOrganization(uid);
  if (!org) throw notFound(uid);
  const visible = await organizationsOf(store, principal);
  if (!visible.some((v) => v.org.uid === uid)) throw errors.notOrgMember();
  return org;
}

/** Remaining event capacity this month: the plan's monthly capacity less billable events so far. */
async function currentBalance(store: HubStore, org: OrganizationRecord, now: number): Promise<number> {
  const start = monthStart(now);
  const used = await store.telemetry.billableEventsByDay(org.uid, start, now + 1);
  let total = 0;
  for (const n of used.values()) total += n;
  return org.eventCapacity - total;
}

async function organizationDetail(
  store: HubStore,
  org: OrganizationRecord,
  now: number,
): Promise<JsonObject> {
  const owner = await store.accounts.getUser(org.ownerUid);
  const plan: JsonObject = {
    type: org.planType,
    current_balance: await currentBalance(store, org, now),
    start_date: isoTime(org.planStart),
  };
  if (org.planType === "Enterprise") {
    if (org.planEnd !== null) plan.end_date = isoTime(org.planEnd);
    plan.event_capacity = org.eventCapacity;
  }
  return {
    uid: org.uid,
    name: org.name,
    owner: owner?.email ?? org.ownerUid,
    contact_uid: org.contactUid,
    email: org.email,
    suspended: org.suspended,
    plan,
  };
}

/**
 * One entry per UTC day in the range: events billed that day and the capacity left in that
 * day's month once they were counted.
 */
async function balanceHistory(ctx: AccountContext, org: OrganizationRecord): Promise<JsonObject> {
  const store = ctx.services.store;
  const endSec = ctx.query.date("endDate") ?? Math.floor(ctx.now / 1000);
  const startSec = ctx.query.date("startDate") ?? endSec - 30 * 86_400;
  const first = Math.floor((startSec * 1000) / DAY_MS) * DAY_MS;
  const last = Math.floor((endSec * 1000) / DAY_MS) * DAY_MS;
  if (last < first) throw errors.fieldInvalid("endDate", "must not be before startDate");
  if ((last - first) / DAY_MS >= MAX_HISTORY_DAYS) {
    throw errors.fieldInvalid("startDate", `and endDate may span at most ${MAX_HISTORY_DAYS} days`);
  }
  const from = monthStart(first);
  const used = await store.telemetry.billableEventsByDay(org.uid, from, last + DAY_MS);
  const data: JsonObject[] = [];
  let month = -1;
  let monthUsed = 0;
  for (let day = from; day <= last; day += DAY_MS) {
    if (monthStart(day) !== month) {
      month = monthStart(day);
      monthUsed = 0;
    }
    const n = used.get(day) ?? 0;
    monthUsed += n;
    if (day >= first) {
      data.push({
        period: isoTime(day),
        remaining_event_capacity: org.eventCapacity - monthUsed,
        total_event_capacity_used: n,
      });
    }
  }
  return { data };
}

/**
 * The two names of the same organizations: the current API's and the deprecated billing-account
 * view, which keeps its own words for the list, the path parameter and the roles.
 */
const VIEWS = [
  {
    path: "/v1/organizations",
    param: "organizationUID",
    list: "organizations",
    role: (role: OrgRole): string => role,
    notFound: errors.organizationNotFound,
  },
  {
    path: "/v1/billing-accounts",
    param: "billingAccountUID",
    list: "billing_accounts",
    role: (role: OrgRole): string => BILLING_ROLE[role],
    notFound: errors.billingAccountNotFound,
  },
] as const;

/** Organizations and their deprecated billing-account view. */
export function registerAccountRoutes(router: HubRouter): void {
  const { store } = router.services;

  for (const view of VIEWS) {
    const one = `${view.path}/:${view.param}`;
    const organization = (ctx: AccountContext): Promise<OrganizationRecord> =>
      organizationFor(store, ctx.principal, ctx.params[view.param]!, view.notFound);

    router.account("GET", view.path, async (ctx) => ({
      [view.list]: (await organizationsOf(store, ctx.principal)).map(({ org, role }) => ({
        uid: org.uid,
        name: org.name,
        role: view.role(role),
      })),
    }));

    router.account("GET", one, async (ctx) => organizationDetail(store, await organization(ctx), ctx.now));

    router.account("GET", `${one}/balance-history`, async (ctx) =>
      balanceHistory(ctx, await organization(ctx)),
    );
  }
}
