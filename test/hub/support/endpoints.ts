import type { ProjectRole } from "../../../hub/store/records.js";

/**
 * Every endpoint of the hub with the minimum project role the spec asks for (reads: viewer;
 * writes, public keys and provisioning: developer). Written here by hand, not read from the hub,
 * so that a route registered with the wrong role fails the tests.
 *
 * Placeholders: {P} project, {D} device, {F} fleet, {PR} product, {K} variable, {ORG} organization,
 * {E} event, {R} route, {M} monitor, {J} batch job, {RUN} job run, {WH} webhook, {SEC} project
 * secret, {JY} journey, {SPAREP} a project to delete (its members as the main project's).
 */
export interface Endpoint {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  /**
   * Project routes: the minimum role. Account routes: "account"; staff-only writes: "staff";
   * routes opened by the device's PIN in X-Auth-Token rather than a token: "pin" (the seeded
   * device {D} has the PIN {PIN}).
   */
  access: ProjectRole | "account" | "staff" | "pin";
  /** A valid body, when the route takes one. */
  body?: unknown;
  /** It succeeds once only (it deletes what its path names): the rate limit is not tried on it. */
  once?: boolean;
}

/** An Ed25519 public key in PEM (a device's key to pin). */
const PEM =
  "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=\n-----END PUBLIC KEY-----\n";

export const ENDPOINTS: Endpoint[] = [
  // organizations and the deprecated billing-account view
  { method: "GET", path: "/v1/organizations", access: "account" },
  { method: "GET", path: "/v1/organizations/{ORG}", access: "account" },
  { method: "GET", path: "/v1/organizations/{ORG}/balance-history", access: "account" },
  { method: "GET", path: "/v1/billing-accounts", access: "account" },
  { method: "GET", path: "/v1/billing-accounts/{ORG}", access: "account" },
  { method: "GET", path: "/v1/billing-accounts/{ORG}/balance-history", access: "account" },
  // descriptions
  { method: "GET", path: "/v1/description", access: "account" },
  { method: "GET", path: "/v1/description/readme", access: "account" },
  { method: "POST", path: "/v1/description/readme", access: "staff", body: { hello: 1 } },
  { method: "DELETE", path: "/v1/description/gone", access: "staff" },
  // projects and products
  { method: "GET", path: "/v1/projects", access: "account" },
  {
    method: "POST",
    path: "/v1/projects",
    access: "account",
    body: { label: "x", billing_account_uid: "{ORG}" },
  },
  { method: "GET", path: "/v1/projects/{P}", access: "viewer" },
  { method: "GET", path: "/v1/products/{PR}/project", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/members", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/products", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/products",
    access: "developer",
    body: { product_uid: "product:com.example:new", label: "New" },
  },
  { method: "DELETE", path: "/v1/projects/{P}/products/product:com.example:spare", access: "developer" },
  // fleets
  { method: "GET", path: "/v1/projects/{P}/fleets", access: "viewer" },
  { method: "POST", path: "/v1/projects/{P}/fleets", access: "developer", body: { label: "new fleet" } },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}", access: "viewer" },
  { method: "PUT", path: "/v1/projects/{P}/fleets/{F}", access: "developer", body: { label: "renamed" } },
  { method: "DELETE", path: "/v1/projects/{P}/fleets/{SPAREF}", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}/devices", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}/environment_variables", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/fleets/{F}/environment_variables",
    access: "developer",
    body: { environment_variables: { k: "v" } },
  },
  { method: "DELETE", path: "/v1/projects/{P}/fleets/{F}/environment_variables/{K}", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}/environment_hierarchy", access: "viewer" },
  // project environment
  { method: "GET", path: "/v1/projects/{P}/environment_variables", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/environment_variables",
    access: "developer",
    body: { environment_variables: { k: "v" } },
  },
  { method: "DELETE", path: "/v1/projects/{P}/environment_variables/{K}", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/environment_hierarchy", access: "viewer" },
  // devices
  { method: "GET", path: "/v1/projects/{P}/devices", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/public-keys", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}", access: "viewer" },
  { method: "DELETE", path: "/v1/projects/{P}/devices/{SPARED}", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/devices/{D}/disable", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/devices/{D}/enable", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/devices/{D}/enable-connectivity-assurance", access: "developer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/devices/{D}/disable-connectivity-assurance",
    access: "developer",
  },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/environment_hierarchy", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/environment_variables", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/devices/{D}/environment_variables",
    access: "developer",
    body: { environment_variables: { k: "v" } },
  },
  { method: "DELETE", path: "/v1/projects/{P}/devices/{D}/environment_variables/{K}", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/devices/{D}/pin", access: "developer" },
  { method: "GET", path: "/v1/products/{PR}/devices/{D}/environment_variables_with_pin", access: "pin" },
  {
    method: "PUT",
    path: "/v1/products/{PR}/devices/{D}/environment_variables_with_pin",
    access: "pin",
    body: { environment_variables: { k: "v" } },
  },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/health-log", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/plans", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/latest", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/sessions", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/fleets", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/devices/{D}/fleets",
    access: "developer",
    body: { fleet_uids: ["{F}"] },
  },
  {
    method: "DELETE",
    path: "/v1/projects/{P}/devices/{D}/fleets",
    access: "developer",
    body: { fleet_uids: ["{F}"] },
  },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/public-key", access: "developer" },
  // Ours (pinning a device's key), beside the hosted API's GET.
  { method: "PUT", path: "/v1/projects/{P}/devices/{D}/public-key", access: "developer", body: { key: PEM } },
  {
    method: "POST",
    path: "/v1/projects/{P}/devices/{D}/signal",
    access: "developer",
    body: { body: { on: true } },
  },
  {
    method: "POST",
    path: "/v1/projects/{P}/devices/dev:9000000000001/provision",
    access: "developer",
    body: { product_uid: "{PR}", public_key: PEM },
  },
  {
    method: "POST",
    path: "/v1/products/{PR}/devices/{D}/webhook-event",
    access: "developer",
    body: { file: "data.qo", body: { a: 1 } },
  },
  {
    method: "POST",
    path: "/v1/products/{PR}/ext-devices/{D}/event",
    access: "developer",
    body: { file: "data.qo", body: { a: 1 } },
  },
  // notes and notefiles
  {
    method: "POST",
    path: "/v1/projects/{P}/devices/{D}/notes/data.qi",
    access: "developer",
    body: { body: { a: 1 } },
  },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/notes/config.db", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/devices/{D}/notes/config.db/new-note",
    access: "developer",
    body: { body: { a: 1 } },
  },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/notes/config.db/setting", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/devices/{D}/notes/config.db/setting",
    access: "developer",
    body: { body: { a: 2 } },
  },
  { method: "DELETE", path: "/v1/projects/{P}/devices/{D}/notes/config.db/spare", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/notes/config.db/changes", access: "viewer" },
  { method: "POST", path: "/v1/projects/{P}/devices/{D}/notefiles/made.db", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/files", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/files/changes", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/files/changes/pending", access: "viewer" },
  {
    method: "DELETE",
    path: "/v1/projects/{P}/devices/{D}/files",
    access: "developer",
    body: { files: ["spare.db"] },
  },
  // events
  { method: "GET", path: "/v1/projects/{P}/events", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/events-cursor", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}/events", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/fleets/{F}/events-cursor", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/events/{E}/route-logs", access: "viewer" },
  // routes
  { method: "GET", path: "/v1/projects/{P}/routes", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/routes",
    access: "developer",
    body: { label: "x", type: "http", disabled: true, http: { url: "http://127.0.0.1:9/x" } },
  },
  { method: "GET", path: "/v1/projects/{P}/routes/{R}", access: "viewer" },
  { method: "PUT", path: "/v1/projects/{P}/routes/{R}", access: "developer", body: { label: "renamed" } },
  { method: "GET", path: "/v1/projects/{P}/routes/{R}/route-logs", access: "viewer" },
  { method: "DELETE", path: "/v1/projects/{P}/routes/{R}", access: "developer" },
  // usage
  { method: "GET", path: "/v1/projects/{P}/usage/data?period=day", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/usage/events?period=week", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/usage/sessions?period=month", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/usage/route-logs?period=day", access: "viewer" },
  // monitors and alerts
  { method: "GET", path: "/v1/projects/{P}/monitors", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/monitors",
    access: "developer",
    body: {
      name: "Hot",
      description: "",
      source_type: "event",
      source_selector: "body.t",
      threshold: 30,
      alert_routes: [],
    },
  },
  { method: "GET", path: "/v1/projects/{P}/monitors/{M}", access: "viewer" },
  {
    method: "PUT",
    path: "/v1/projects/{P}/monitors/{M}",
    access: "developer",
    body: { source_selector: "body.t", threshold: 40 },
  },
  { method: "DELETE", path: "/v1/projects/{P}/monitors/{M}", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/alerts", access: "viewer" },
  // batch jobs
  { method: "GET", path: "/v1/projects/{P}/jobs", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/jobs?name=Tag",
    access: "developer",
    body: { select: { all_devices: true } },
  },
  { method: "GET", path: "/v1/projects/{P}/jobs/{J}", access: "viewer" },
  { method: "DELETE", path: "/v1/projects/{P}/jobs/{J}", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/jobs/{J}/run?dry_run=true", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/jobs/{J}/runs", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/jobs/runs/{RUN}", access: "viewer" },
  { method: "DELETE", path: "/v1/projects/{P}/jobs/runs/{RUN}", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/jobs/runs/{RUN}/cancel", access: "developer" },
  // webhooks, external devices' sessions, secrets, journeys, schemas, global transformation (integrationRoutes.ts)
  { method: "GET", path: "/v1/projects/{P}/webhooks", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/webhooks/{WH}", access: "viewer" },
  { method: "POST", path: "/v1/projects/{P}/webhooks/fresh", access: "developer", body: { transform: "" } },
  { method: "PUT", path: "/v1/projects/{P}/webhooks/{WH}", access: "developer", body: { disabled: false } },
  { method: "DELETE", path: "/v1/projects/{P}/webhooks/{WH}", access: "developer" },
  { method: "GET", path: "/v1/products/{PR}/webhooks/{WH}/settings", access: "viewer" },
  { method: "PUT", path: "/v1/products/{PR}/webhooks/{WH}/settings", access: "developer", body: {} },
  { method: "POST", path: "/v1/products/{PR}/webhooks/{WH}/event", access: "developer", body: { a: 1 } },
  {
    method: "POST",
    path: "/v1/products/{PR}/webhooks/{WH}/devices/{D}/event",
    access: "developer",
    body: { a: 1 },
  },
  {
    method: "PUT",
    path: "/v1/products/{PR}/devices/{D}/webhook-session",
    access: "developer",
    body: { bars: 3 },
  },
  {
    method: "POST",
    path: "/v1/products/{PR}/ext-devices/{D}/session/open",
    access: "developer",
    body: { bars: 3 },
  },
  { method: "POST", path: "/v1/products/{PR}/ext-devices/{D}/session/close", access: "developer", body: {} },
  { method: "GET", path: "/v1/projects/{P}/secrets", access: "viewer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/secrets",
    access: "developer",
    body: { name: "NEW", value: "v" },
  },
  { method: "PUT", path: "/v1/projects/{P}/secrets/{SEC}", access: "developer", body: { value: "v2" } },
  { method: "DELETE", path: "/v1/projects/{P}/secrets/{SEC}", access: "developer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/journeys", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/devices/{D}/journeys/{JY}", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/schemas", access: "viewer" },
  { method: "GET", path: "/v1/projects/{P}/aws-role-config", access: "viewer" },
  { method: "POST", path: "/v1/projects/{P}/global-transformation", access: "developer", body: "$" },
  { method: "POST", path: "/v1/projects/{P}/global-transformation/enable", access: "developer" },
  { method: "POST", path: "/v1/projects/{P}/global-transformation/disable", access: "developer" },
  {
    method: "POST",
    path: "/v1/projects/{P}/clone",
    access: "owner",
    body: { label: "Copy", billing_account_uid: "{ORG}" },
  },
  { method: "DELETE", path: "/v1/projects/{SPAREP}", access: "owner", once: true },
];
