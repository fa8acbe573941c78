import type { Clock } from "../core/Clock.js";
import { hashPassword, hashSecret, newPassword, newSecret, UNUSABLE_PASSWORD_HASH } from "./auth/secrets.js";
import type { HubIds } from "./HubIds.js";
import type { HubStore } from "./store/HubStore.js";
import type { ProjectRole, UserRecord } from "./store/records.js";

/** What the first start creates; the ids are kept in the store, the secrets only in credentials.json. */
export interface BootstrapState {
  project_uid: string;
  product_uid: string;
  username: string;
  user_uid: string;
  org_uid: string;
}

export const DEFAULT_ADMIN = "admin@cardsim.local";
export const DEFAULT_PRODUCT = "product:local.cardsim:default";
const META_KEY = "bootstrap";

/** A personal access token for a user; the secret is returned once and stored hashed. */
export async function createPersonalAccessToken(
  store: HubStore,
  ids: HubIds,
  clock: Clock,
  options: { userUid: string; name: string; description?: string; expires?: number | null },
): Promise<{ uid: string; token: string }> {
  const token = newSecret("cardsim_pat");
  const uid = ids.uuid();
  await store.credentials.createToken({
    uid,
    kind: "pat",
    hash: hashSecret(token),
    userUid: options.userUid,
    clientId: null,
    projectUid: null,
    role: null,
    scope: null,
    name: options.name,
    description: options.description ?? "",
    created: clock.now(),
    expires: options.expires ?? null,
    suspended: false,
    lastUsed: null,
  });
  return { uid, token };
}

/** A user with a scrypt-hashed password, optionally a member of a project. */
export async function createUser(
  store: HubStore,
  ids: HubIds,
  clock: Clock,
  options: {
    username: string;
    /** The password, hashed here (scrypt, slow on purpose), or its hash made beforehand. */
    password: string | { hash: string };
    name?: string;
    staff?: boolean;
    project?: { uid: string; role: ProjectRole };
  },
): Promise<UserRecord> {
  const user: UserRecord = {
    uid: ids.uuid(),
    username: options.username,
    name: options.name ?? options.username,
    email: options.username.includes("@") ? options.username : `${options.username}@cardsim.local`,
    passwordHash:
      typeof options.password === "string" ? await hashPassword(options.password) : options.password.hash,
    staff: options.staff ?? false,
    created: clock.now(),
  };
  await store.accounts.createUser(user);
  if (options.project) await store.projects.setMember(options.project.uid, user.uid, options.project.role);
  return user;
}

export async function bootstrapState(store: HubStore): Promise<BootstrapState | undefined> {
  const text = await store.getMeta(META_KEY);
  return text === undefined ? undefined : (JSON.parse(text) as BootstrapState);
}

/**
 * The bootstrap admin's password: a new random one (the default), one made beforehand with its
 * hash, or none (`NO_SIGN_IN`: a hub that only its token reaches, such as a test's in-process hub,
 * which then pays for no scrypt hash).
 */
export type AdminPassword = "new" | { password: string; hash: string };
export const NO_SIGN_IN: AdminPassword = { password: "", hash: UNUSABLE_PASSWORD_HASH };

/**
 * First start: an admin (staff, organization admin, project owner), an organization (which the
 * deprecated API shows as a billing account), a project with one product, and a personal
 * access token. Returns the secrets, which exist nowhere else.
 */
export async function bootstrapHub(
  store: HubStore,
  ids: HubIds,
  clock: Clock,
  adminPassword: AdminPassword = "new",
): Promise<{ state: BootstrapState; password: string; token: string }> {
  const now = clock.now();
  const password = adminPassword === "new" ? newPassword() : adminPassword.password;
  const admin = await createUser(store, ids, clock, {
    username: DEFAULT_ADMIN,
    password: adminPassword === "new" ? password : { hash: adminPassword.hash },
    name: "cardsim admin",
    staff: true,
  });
  const orgUid = ids.uuid();
  await store.accounts.createOrganization({
    uid: orgUid,
    name: "Local organization",
    ownerUid: admin.uid,
    email: admin.email,
    contactUid: admin.uid,
    suspended: false,
    planType: "Essentials",
    eventCapacity: 5000,
    planStart: now,
    planEnd: null,
    created: now,
  });
  await store.accounts.setOrgMember(orgUid, admin.uid, "org_admin");
  const contact = { name: admin.name, email: admin.email, role: "owner", organization: "Local organization" };
  const projectUid = ids.projectUid();
  await store.projects.createProject({
    uid: projectUid,
    label: "Local project",
    orgUid,
    created: now,
    administrativeContact: contact,
    technicalContact: contact,
  });
  await store.projects.setMember(projectUid, admin.uid, "owner");
  await store.projects.createProduct({
    uid: DEFAULT_PRODUCT,
    projectUid,
    label: "Default product",
    disableDevicesByDefault: false,
    autoProvisionFleets: null,
    created: now,
  });
  const { token } = await createPersonalAccessToken(store, ids, clock, {
    userUid: admin.uid,
    name: "bootstrap",
    description: "created on the hub's first start (credentials.json)",
  });
  const state: BootstrapState = {
    project_uid: projectUid,
    product_uid: DEFAULT_PRODUCT,
    username: admin.username,
    user_uid: admin.uid,
    org_uid: orgUid,
  };
  await store.setMeta(META_KEY, JSON.stringify(state));
  return { state, password, token };
}

/**
 * New secrets for the bootstrap admin, for when credentials.json was lost (the database keeps only
 * their hashes): a new password and a new personal access token, stored as one change. Undefined
 * when the admin user no longer exists.
 */
export async function reissueAdminSecrets(
  store: HubStore,
  ids: HubIds,
  clock: Clock,
  state: BootstrapState,
): Promise<{ token: string; password: string } | undefined> {
  const password = newPassword();
  const passwordHash = await hashPassword(password); // slow on purpose: not inside the transaction
  return store.transaction(async () => {
    const user = await store.accounts.getUser(state.user_uid);
    if (!user) return undefined;
    await store.accounts.setPasswordHash(user.uid, passwordHash);
    const { token } = await createPersonalAccessToken(store, ids, clock, {
      userUid: user.uid,
      name: "credentials.json (re-created)",
    });
    return { token, password };
  });
}
