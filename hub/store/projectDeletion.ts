/** The devices of the project being deleted (the one parameter of every statement below). */
const DEVICES = "SELECT uid FROM devices WHERE project_uid = ?";

/** Tables keyed by device alone: their rows of the project's devices go first. */
const BY_DEVICE = ["device_tags", "device_fleets", "signals", "notefiles", "notes", "trackers"];

/** Tables with a project column, children before the records they hang from. */
const BY_PROJECT = [
  "project_members",
  "env_vars",
  "sessions",
  "events",
  "health_log",
  "access_tokens",
  "oauth_clients",
  "route_queue",
  "route_logs",
  "routes",
  "firmware_chunks",
  "firmware",
  "dfu_requests",
  "webhooks",
  "project_secrets",
  "global_transforms",
  "alerts",
  "monitors",
  "job_runs",
  "jobs",
  "devices",
  "fleets",
  "products",
];

/**
 * The statements that delete a project and everything of it, in order, each taking the
 * ProjectUID as its one parameter; both backends run them in one transaction. A table added
 * with a project's rows belongs in this list.
 */
export const PROJECT_DELETION: readonly string[] = [
  ...BY_DEVICE.map((table) => `DELETE FROM ${table} WHERE device_uid IN (${DEVICES})`),
  ...BY_PROJECT.map((table) => `DELETE FROM ${table} WHERE project_uid = ?`),
  "DELETE FROM projects WHERE uid = ?",
];
