import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { type Principal, roleAtLeast } from "../auth/Principal.js";
import * as errors from "../errors.js";
import type { HubServices } from "../HubServices.js";
import { checkDevicePin } from "../auth/devicePin.js";
import type { RateDecision } from "../auth/RateLimiter.js";
import type { DeviceRecord, ProjectRecord, ProjectRole } from "../store/records.js";
import type { BodySchema } from "./bodySchema.js";
import { QueryReader } from "./QueryReader.js";

export interface PublicContext {
  readonly services: HubServices;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly params: Record<string, string>;
  readonly query: QueryReader;
  /** The clock's time when the request arrived (epoch ms). */
  readonly now: number;
  /**
   * A HEAD request: GET without the body, which must change nothing (no note taken, no tracker
   * moved). Routes whose reads have side effects skip them when this is set.
   */
  readonly readOnly: boolean;
  /**
   * The JSON body checked against the operation's schema (a 400 in the hub's words when it breaks
   * it); `required: false` accepts none. Handlers call it where the body matters, after the checks
   * of the path, so those answer first as they always have.
   */
  body<T>(schema: BodySchema<T>, options?: { required: boolean }): T;
}

export interface AccountContext extends PublicContext {
  readonly principal: Principal;
}

/** A staff route's context: the caller is a user with the staff flag. */
export interface StaffContext extends AccountContext {
  readonly principal: Extract<Principal, { kind: "user" }>;
}

export interface ProjectContext extends AccountContext {
  readonly project: ProjectRecord;
  readonly role: ProjectRole;
}

/** A device-PIN route's context: the device the PIN opened, and its project. No user acts. */
export interface DevicePinContext extends PublicContext {
  readonly project: ProjectRecord;
  readonly device: DeviceRecord;
}

/** A handler's result: a JSON value (sent with the route's status) or undefined for no body. */
type Result = unknown;

/**
 * The least project role a route needs: fixed, or decided by the request's query where one path
 * both reads and writes (a note read with `delete=true` takes the note). Either way it is checked
 * with the other access rules, before the handler runs or anything is looked up.
 */
export type RoleRule = ProjectRole | ((query: QueryReader) => ProjectRole);

/** Who may call a route: anyone, any authenticated caller, or one with a role in the path's project. */
type Access =
  | { kind: "public" }
  | { kind: "account" }
  | { kind: "staff" }
  | { kind: "project"; role: RoleRule }
  | { kind: "pin" };

/** What the access checks found: nothing (public), the caller, or the caller with its project and role. */
type Granted = Partial<Omit<ProjectContext, keyof PublicContext>> & { device?: DeviceRecord };

interface RouteOptions {
  status?: number;
  bodyLimit?: number;
}

/**
 * Declares routes with their access rule. Order of checks, the same for every route:
 * authentication (401), the project named in the path (404), the billing account's rate limit
 * (429), the caller's role in the project (403), then the handler. A request is counted against
 * the limit only once it passed them all.
 */
export class HubRouter {
  constructor(
    readonly app: FastifyInstance,
    readonly services: HubServices,
  ) {}

  /** The same router on an encapsulated fastify context (its own content-type parsers). */
  within(app: FastifyInstance): HubRouter {
    return new HubRouter(app, this.services);
  }

  /** A route anyone may call (login, token issue). */
  public(
    method: HTTPMethods,
    url: string,
    handler: (ctx: PublicContext) => Promise<Result>,
    options?: RouteOptions,
  ): void {
    this.#route(method, url, { kind: "public" }, handler, options);
  }

  /** A route for any authenticated caller, limited against the caller's own billing account. */
  account(
    method: HTTPMethods,
    url: string,
    handler: (ctx: AccountContext) => Promise<Result>,
    options?: RouteOptions,
  ): void {
    this.#route(method, url, { kind: "account" }, handler, options);
  }

  /** A route for the service's staff (global descriptions' writes); anyone else gets 403, uncounted. */
  staff(
    method: HTTPMethods,
    url: string,
    handler: (ctx: StaffContext) => Promise<Result>,
    options?: RouteOptions,
  ): void {
    this.#route(method, url, { kind: "staff" }, handler, options);
  }

  /**
   * A route under `/v1/projects/:projectUID` (a ProjectUID or ProductUID), or naming a
   * `:productUID`, needing at least `role` in that project.
   */
  project(
    method: HTTPMethods,
    url: string,
    role: RoleRule,
    handler: (ctx: ProjectContext) => Promise<Result>,
    options?: RouteOptions,
  ): void {
    this.#route(method, url, { kind: "project", role }, handler, options);
  }

  /**
   * A route under `/v1/products/:productUID/devices/:deviceUID` authenticated by that device's PIN
   * in `X-Auth-Token` rather than by a token: see #admitPin for the checks.
   */
  devicePin(
    method: HTTPMethods,
    url: string,
    handler: (ctx: DevicePinContext) => Promise<Result>,
    options?: RouteOptions,
  ): void {
    this.#route(method, url, { kind: "pin" }, handler, options);
  }

  #route<C extends PublicContext>(
    method: HTTPMethods,
    url: string,
    access: Access,
    handler: (ctx: C) => Promise<Result>,
    options: RouteOptions = {},
  ): void {
    // Access is checked in onRequest, before the body is read: an unauthorized caller never
    // makes the hub parse (or buffer) what it sent. A public route checks nothing: no hook.
    const granted = new WeakMap<FastifyRequest, Granted>();
    this.app.route({
      method,
      url,
      bodyLimit: options.bodyLimit,
      ...(access.kind === "public"
        ? {}
        : {
            onRequest: async (request: FastifyRequest) => {
              granted.set(request, await this.#admit(request, access));
            },
          }),
      handler: async (request, reply) => {
        const ctx = { ...this.#base(request, reply), ...granted.get(request) } as C;
        const result = await handler(ctx);
        if (reply.sent) return reply;
        if (options.status !== undefined && reply.statusCode === 200) reply.code(options.status);
        if (result === undefined) return reply.send();
        return reply.send(result);
      },
    });
  }

  /** Every access check, in the order the class comment gives. */
  async #admit(request: FastifyRequest, access: Access): Promise<Granted> {
    if (access.kind === "public") return {};
    if (access.kind === "pin") return this.#admitPin(request);
    const principal = await this.services.auth.authenticate(request.headers, request.method);
    if (access.kind === "account" || access.kind === "staff") {
      const home = await this.#homeAccount(principal);
      await this.#check(home);
      if (access.kind === "staff" && (principal.kind !== "user" || !principal.staff))
        throw errors.staffOnly();
      await this.#take(home);
      return { principal };
    }
    const params = (request.params ?? {}) as Record<string, string>;
    const project = await this.resolveProject(params.projectUID ?? params.productUID ?? "");
    await this.#check(project.orgUid);
    const needed = typeof access.role === "function" ? access.role(this.#query(request)) : access.role;
    const have = await this.services.auth.roleIn(principal, project.uid);
    // A caller refused for its role (or for not being in the project) costs the project nothing.
    if (!roleAtLeast(have, needed)) throw errors.roleTooLow(needed, have);
    await this.#take(project.orgUid);
    return { principal, project, role: have! };
  }

  /**
   * A device-PIN route's checks: a PIN sent (401), the product (404), the billing account's rate
   * limit (429), the device in that product (404), the device's wrong-PIN throttle (429), then the
   * PIN (401; each wrong one counts against the device, so a PIN cannot be guessed by trying).
   */
  async #admitPin(request: FastifyRequest): Promise<Granted> {
    const pin = request.headers["x-auth-token"];
    if (typeof pin !== "string" || pin === "") throw errors.missingPin();
    const params = (request.params ?? {}) as Record<string, string>;
    const productUid = params.productUID ?? "";
    const project = await this.resolveProject(productUid);
    await this.#check(project.orgUid);
    const device = await this.services.store.devices.getDevice(params.deviceUID ?? "");
    if (!device || device.productUid !== productUid) throw errors.deviceNotFound(params.deviceUID ?? "");
    const { pins } = this.services;
    const wait = await pins.wait(device.uid);
    if (wait > 0) throw errors.pinThrottled(Math.ceil(wait / 1000));
    if (!(await checkDevicePin(pin, device.details.pinHash ?? undefined))) {
      await pins.failed(device.uid);
      throw errors.wrongPin();
    }
    await pins.succeeded(device.uid);
    await this.#take(project.orgUid);
    return { project, device };
  }

  #base(request: FastifyRequest, reply: FastifyReply): PublicContext {
    return {
      services: this.services,
      request,
      reply,
      params: (request.params ?? {}) as Record<string, string>,
      query: this.#query(request),
      now: this.services.clock.now(),
      readOnly: request.method === "HEAD",
      body: (schema, options = { required: true }) => schema.read(request.body, options),
    };
  }

  #query(request: FastifyRequest): QueryReader {
    return new QueryReader((request.query ?? {}) as Record<string, string | string[]>);
  }

  /** A project by ProjectUID, or the project of a ProductUID. */
  async resolveProject(uid: string): Promise<ProjectRecord> {
    const store = this.services.store;
    if (uid.startsWith("product:")) {
      const product = await store.projects.getProduct(uid);
      const project = product && (await store.projects.getProject(product.projectUid));
      if (!project) throw errors.projectNotFound(uid);
      return project;
    }
    const project = await store.projects.getProject(uid);
    if (!project) throw errors.projectNotFound(uid);
    return project;
  }

  /** The billing account a caller's own requests count against. */
  async #homeAccount(principal: Principal): Promise<string> {
    if (principal.kind === "oauth") {
      const project = await this.services.store.projects.getProject(principal.projectUid);
      return project?.orgUid ?? `client:${principal.clientId}`;
    }
    const orgs = await this.services.store.accounts.listOrganizationsOf(principal.userUid);
    return orgs[0]?.org.uid ?? `user:${principal.userUid}`;
  }

  /** Refuses with 429 when `account` is over its limit; counts nothing. */
  async #check(account: string): Promise<void> {
    this.#refuseUnless(await this.services.limiter.check(account));
  }

  /**
   * Counts the request against `account` once every other check passed; 429 when the limit was
   * reached meanwhile (by a request answered since the check, here or in another hub process).
   */
  async #take(account: string): Promise<void> {
    this.#refuseUnless(await this.services.limiter.take(account));
  }

  #refuseUnless(decision: RateDecision): void {
    if (!decision.allowed) {
      const limits = this.services.limiter.limits;
      const limit = limits ? (decision.window === "day" ? limits.perDay : limits.perMinute) : 0;
      throw errors.rateLimited(decision.retryAfterSeconds, decision.window, limit);
    }
  }
}
