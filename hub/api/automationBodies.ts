import { DURATION } from "../monitors/monitorRules.js";
import { AGGREGATES, CONDITIONS } from "../monitors/monitorRules.js";
import { body, type Field, flag, integer, shape, text, textMap, texts } from "./bodySchema.js";

/**
 * The request bodies of monitors (CreateMonitor, UpdateMonitor) and batch jobs (CreateJob), in
 * our words; the field names and types follow the OpenAPI definitions, and the contract test
 * compares them field by field (as requestBodies.ts).
 */

/** One of a few texts. */
function oneOf(values: readonly string[]): Field<string, false> {
  const says = `must be one of ${values.join(", ")}`;
  return {
    schema: { type: ["string", "null"], enum: [...values, null], says: { type: says, enum: says } },
    required: false,
  };
}

/** A duration as the definition's pattern has it: `30s`, `10m`, `5h`. */
function duration(): Field<string, false> {
  const says = "must be a number and a unit (s, m or h), such as 10m";
  return {
    schema: { type: ["string", "null"], pattern: DURATION.source, says: { type: says, pattern: says } },
    required: false,
  };
}

/** Where alerts are notified: Slack (webhook or bearer token) or e-mail. */
function alertRoutes<const R extends boolean>(required: R): Field<Record<string, string>[], R> {
  const wrong = "must be an array of notification targets (objects with email, url or token)";
  const member = { type: "string", says: { type: `${wrong}: their members are texts` } };
  return {
    schema: {
      type: required ? "array" : ["array", "null"],
      maxItems: 20,
      items: {
        type: "object",
        properties: {
          email: member,
          url: member,
          token: member,
          channel: member,
          text: member,
          message_type: {
            type: "string",
            enum: ["text", "blocks"],
            says: { enum: "must be text or blocks" },
          },
        },
        says: { type: wrong },
      },
      says: { type: wrong, null: "is required", maxItems: "may hold at most 20 targets" },
    },
    required,
  };
}

/** A text that must be given but may be empty (CreateMonitor's description). */
const givenText: Field<string, true> = {
  schema: { type: "string", says: { type: "must be a string", null: "is required" } },
  required: true,
};

const MONITOR_FIELDS = {
  name: text({ max: 200, nonEmpty: true }),
  description: text({ max: 2000 }),
  source_type: oneOf(["event", "heartbeat"]),
  source_selector: text({ max: 10_000 }),
  notefile_filter: texts({ max: 100 }),
  fleet_filter: texts({ max: 100 }),
  aggregate_function: oneOf(AGGREGATES),
  aggregate_window: duration(),
  condition_type: oneOf(CONDITIONS),
  threshold: integer(),
  per_device: flag(),
  disabled: flag(),
  silenced: flag(),
  routing_cooldown_period: duration(),
  alert_routes: alertRoutes(false),
  usage_scope: text({ max: 100 }),
  usage_type: text({ max: 100 }),
  usage_window: integer({ min: 0, max: 3660 }),
};

/** CreateMonitor: the definition requires name, description, alert_routes, source_type, threshold. */
export const CREATE_MONITOR = body({
  ...MONITOR_FIELDS,
  name: text({ required: true, max: 200 }),
  description: givenText,
  source_type: { ...oneOf(["event", "heartbeat"]), required: true as const },
  threshold: { ...integer(), required: true as const },
  alert_routes: alertRoutes(true),
});

/** UpdateMonitor: any of the settings (uid, alert and last_routed_at are the hub's, not read). */
export const UPDATE_MONITOR = body(MONITOR_FIELDS);

const BATCH_REQUESTS = shape({
  comment: text(),
  connectivity_assurance_disable: flag(),
  connectivity_assurance_enable: flag(),
  disable: flag(),
  enable: flag(),
  fleets_to_default: texts({ max: 100 }),
  fleets_to_join: texts({ max: 100 }),
  fleets_to_leave: texts({ max: 100 }),
  provision_product: text(),
  sn_to_default: text({ max: 256 }),
  sn_to_set: text({ max: 256 }),
  vars_to_default: textMap(),
  vars_to_set: textMap(),
});

/** CreateJob: the JobDefinition. */
export const JOB_DEFINITION = body({
  comment: text({ max: 2000 }),
  default_requests: BATCH_REQUESTS,
  device_requests: {
    schema: {
      type: ["object", "null"],
      additionalProperties: BATCH_REQUESTS.schema,
      says: { type: "must be a JSON object of requests by device UID" },
    },
    required: false,
  } as Field<Record<string, unknown>, false>,
  report_options: shape({
    app_fleets: flag(),
    app_info: flag(),
    app_vars: flag(),
    comment: text(),
    device_activity: flag(),
    device_health: flag(),
    device_info: flag(),
    device_vars: flag(),
  }),
  select: shape({
    all_devices: flag(),
    comment: text(),
    devices: texts({ max: 10_000 }),
    devices_by_sn: texts({ max: 1000 }),
    devices_in_fleets: texts({ max: 1000 }),
  }),
});
