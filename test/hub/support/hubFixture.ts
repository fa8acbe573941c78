import type { FastifyInstance } from "fastify";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import type { HubServices } from "../../../hub/HubServices.js";
import type { RateLimits } from "../../../hub/auth/RateLimiter.js";
import { UNUSABLE_PASSWORD_HASH } from "../../../hub/auth/secrets.js";
import { bootstrapHub, createPersonalAccessToken } from "../../../hub/bootstrap.js";
import { testAdminPassword } from "../../support/adminPassword.js";
import { buildHubApp } from "../../../hub/HubApp.js";
import { HubIds } from "../../../hub/HubIds.js";
import type { DeviceInput, DeviceRecord, ProjectRole } from "../../../hub/store/records.js";
import type { HubStore } from "../../../hub/store/HubStore.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { openTestStore, type Backend } from "../../support/backends.js";
import { OpenApiContract } from "./OpenApiContract.js";

export interface HubResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface RequestOptions {
  /** A token name of the fixture (`owner`, `developer`, ...) or a raw token; null sends none. */
  as?: string | null;
  body?: unknown;
  /** Raw payload (sent as is, with `contentType`). */
  payload?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * A hub on an in-memory database, fake clock and seeded identifiers, driven with fastify's inject
 * (no sockets). Users: `owner` (the bootstrap admin, staff), `developer` and `viewer` in the main
 * project, `outsider` owning another project. Every response is checked against the OpenAPI
 * contract when ../shared is present.
 */
export class TestHub {
  readonly tokens: Record<string, string> = {};
  readonly users: Record<string, string> = {};
  /** Responses that broke the contract (each test file asserts none). */
  readonly violations: string[] = [];
  projectUid = "";
  productUid = "";
  orgUid = "";
  otherProjectUid = "";
  otherProductUid = "";
  adminPassword = "";
  #deviceCounter = 0;

  private constructor(
    readonly app: FastifyInstance,
    readonly services: HubServices,
    readonly store: HubStore,
    readonly clock: FakeClock,
    readonly ids: HubIds,
  ) {}

  /** `backend`: the database (default SQLite in memory; `postgres`, a new database on the tests' server). */
  static async start(
    options: { rateLimits?: RateLimits | false; seed?: number; backend?: Backend } = {},
  ): Promise<TestHub> {
    const store = await openTestStore(options.backend);
    const clock = new FakeClock();
    const ids = new HubIds(new SeededRandom(options.seed ?? 7));
    const { app, services } = await buildHubApp({
      store,
      clock,
      ids,
      rateLimits: options.rateLimits ?? false,
      publicUrl: () => "http://hub.test",
    });
    const hub = new TestHub(app, services, store, clock, ids);
    await hub.#seed();
    return hub;
  }

  async #seed(): Promise<void> {
    const { store, ids, clock } = this;
    const made = await bootstrapHub(store, ids, clock, await testAdminPassword());
    this.projectUid = made.state.project_uid;
    this.productUid = made.state.product_uid;
    this.orgUid = made.state.org_uid;
    this.adminPassword = made.password;
    this.tokens.owner = made.token;
    this.users.owner = made.state.user_uid;
    for (const role of ["developer", "viewer"] as const) {
      const uid = await this.addUser(role, { project: this.projectUid, role });
      this.tokens[role] = (
        await createPersonalAccessToken(store, ids, clock, { userUid: uid, name: role })
      ).token;
    }
    const outsider = await this.addUser("outsider");
    this.tokens.outsider = (
      await createPersonalAccessToken(store, ids, clock, { userUid: outsider, name: "o" })
    ).token;
    const otherOrg = ids.uuid();
    await store.accounts.createOrganization({
      uid: otherOrg,
      name: "Other organization",
      ownerUid: outsider,
      email: "outsider@example.com",
      contactUid: outsider,
      suspended: false,
      planType: "Enterprise",
      eventCapacity: 100_000,
      planStart: clock.now(),
      planEnd: clock.now() + 365 * 86_400_000,
      created: clock.now(),
    });
    await store.accounts.setOrgMember(otherOrg, outsider, "org_admin");
    this.otherProjectUid = ids.projectUid();
    await store.projects.createProject({
      uid: this.otherProjectUid,
      label: "Other project",
      orgUid: otherOrg,
      created: clock.now(),
      administrativeContact: null,
      technicalContact: null,
    });
    await store.projects.setMember(this.otherProjectUid, outsider, "owner");
    this.otherProductUid = "product:com.example.other:thing";
    await store.projects.createProduct({
      uid: this.otherProductUid,
      projectUid: this.otherProjectUid,
      label: "Other",
      disableDevicesByDefault: false,
      autoProvisionFleets: null,
      created: clock.now(),
    });
  }

  /** A user (no usable password unless set later), member of the organization and optionally a project. */
  async addUser(name: string, membership?: { project: string; role: ProjectRole }): Promise<string> {
    const uid = this.ids.uuid();
    await this.store.accounts.createUser({
      uid,
      username: `${name}@example.com`,
      name,
      email: `${name}@example.com`,
      passwordHash: UNUSABLE_PASSWORD_HASH,
      staff: false,
      created: this.clock.now(),
    });
    if (membership) {
      await this.store.projects.setMember(membership.project, uid, membership.role);
      await this.store.accounts.setOrgMember(this.orgUid, uid, "org_member");
    }
    this.users[name] = uid;
    return uid;
  }

  /** Stores a device of the main project (UIDs dev:1000000000001, ...). */
  async device(fields: Partial<DeviceInput> = {}): Promise<DeviceRecord> {
    this.#deviceCounter++;
    return this.store.devices.putDevice({
      uid: `dev:${1_000_000_000_000 + this.#deviceCounter}`,
      projectUid: this.projectUid,
      productUid: this.productUid,
      provisioned: this.clock.now(),
      ...fields,
    });
  }

  /**
   * Runs SQL on the hub's database behind the store's back: for rows no API would write (what an
   * older hub stored, a damaged row).
   */
  rawSql(sql: string, ...params: unknown[]): void {
    this.sqlite.notefiles["sql"].run(sql, ...params);
  }

  /** The store as SQLite's, for what only it has (query plans, raw rows); a hub on PostgreSQL throws. */
  get sqlite(): SqliteHubStore {
    if (!(this.store instanceof SqliteHubStore)) throw new Error("this test hub is not on SQLite");
    return this.store;
  }

  async request(method: string, url: string, options: RequestOptions = {}): Promise<HubResponse> {
    const as = options.as === undefined ? "owner" : options.as;
    const headers: Record<string, string> = { ...options.headers };
    if (as !== null) headers.authorization = `Bearer ${this.tokens[as] ?? as}`;
    let payload: string | Buffer | undefined = options.payload;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    if (options.contentType) headers["content-type"] = options.contentType;
    const res = await this.app.inject({ method: method as "GET", url, headers, payload });
    const text = res.body;
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const contract = OpenApiContract.load();
    if (contract) {
      const result = contract.check(
        method,
        url.split("?")[0]!,
        res.statusCode,
        String(res.headers["content-type"] ?? ""),
        text,
      );
      for (const p of result.problems) this.violations.push(`${method} ${url} → ${p}`);
    }
    return { status: res.statusCode, headers: res.headers as HubResponse["headers"], text, json };
  }

  get(url: string, options?: RequestOptions): Promise<HubResponse> {
    return this.request("GET", url, options);
  }

  post(url: string, body?: unknown, options?: RequestOptions): Promise<HubResponse> {
    return this.request("POST", url, { ...options, body });
  }

  put(url: string, body?: unknown, options?: RequestOptions): Promise<HubResponse> {
    return this.request("PUT", url, { ...options, body });
  }

  delete(url: string, options?: RequestOptions): Promise<HubResponse> {
    return this.request("DELETE", url, options);
  }

  /** `/v1/projects/<main project>` + suffix. */
  p(suffix = ""): string {
    return `/v1/projects/${this.projectUid}${suffix}`;
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.store.close();
  }
}

/** The `{err, code, status}` body every API error carries. */
export function expectErrorBody(res: HubResponse, status: number): void {
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  }
  const b = res.json;
  if (!b || typeof b.err !== "string" || b.code !== status || typeof b.status !== "string") {
    throw new Error(`not an error body: ${res.text}`);
  }
}
