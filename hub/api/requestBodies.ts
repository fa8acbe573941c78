import {
  anyValue,
  body,
  type Field,
  flag,
  integer,
  object,
  shape,
  text,
  textMap,
  texts,
} from "./bodySchema.js";

/**
 * The JSON request bodies of the hub's API, one schema per operation (the route bodies are in
 * routeBody.ts). Written here in our words; the field names and types follow the OpenAPI
 * definitions, and a contract test compares them field by field.
 */

/** The longest public key PEM taken (an Ed25519 one is 113 characters). */
export const MAX_PEM = 1024;

/** CreateProject. */
export const CREATE_PROJECT = body({
  label: text({ required: true, max: 200 }),
  billing_account_uid: text({ required: true }),
});

/** CreateProduct. */
export const CREATE_PRODUCT = body({
  product_uid: text({ required: true }),
  label: text({ required: true, max: 200 }),
  auto_provision_fleets: texts({ max: 100 }),
  disable_devices_by_default: flag(),
});

const FLEET_FIELDS = {
  label: text({ max: 200 }),
  smart_rule: text({ max: 10_000 }),
  smart_rule_enabled: flag(),
  watchdog_mins: integer({ min: 0, max: 525_600 }),
  connectivity_assurance: shape({ enabled: flag("must be true, false or null") }),
};

/** CreateFleet (`watchdog_mins` too, as UpdateFleet has it). */
export const CREATE_FLEET = body(FLEET_FIELDS);

/** UpdateFleet: the settings, and the devices to take in and let go. */
export const UPDATE_FLEET = body({
  ...FLEET_FIELDS,
  addDevices: texts({ max: 10_000 }),
  removeDevices: texts({ max: 10_000 }),
});

/** ProvisionDevice; `public_key` is ours (the key the device must prove, pinned before it connects). */
export const PROVISION_DEVICE = body({
  product_uid: text({ required: true }),
  device_sn: text({ max: 256 }),
  fleet_uids: texts({ max: 100 }),
  public_key: text({ max: MAX_PEM }),
});

/** AddDeviceToFleets and DeleteDeviceFromFleets. */
export const DEVICE_FLEETS = body({ fleet_uids: texts({ required: true, max: 100 }) });

/** Ours: pins a device's public key. */
export const DEVICE_PUBLIC_KEY = body({ key: text({ required: true, max: MAX_PEM }) });

/** SignalDevice. */
export const SIGNAL_DEVICE = body({ body: object({ required: true }) });

/** PerformDfuAction (the body is optional; `filename` is needed by an update). */
export const DFU_ACTION = body({ filename: text() });

/** AddQiNote, AddDbNote, UpdateDbNote: a body, a base64 payload, or both. */
export const NOTE_INPUT = body({ body: object(), payload: text() });

/** DeleteNotefiles. */
export const DELETE_NOTEFILES = body({ files: texts({ required: true, max: 1000 }) });

/** SetProjectEnvironmentVariables, SetFleetEnvironmentVariables, SetDeviceEnvironmentVariables. */
export const ENVIRONMENT_VARIABLES = body({ environment_variables: textMap({ required: true }) });

/** UpdateFirmware (host firmware metadata). */
export const UPDATE_FIRMWARE = body({ info: object(), notes: text(), version: text() });

/** When a note was captured: epoch seconds, not before 1970. */
function epochSeconds(): Field<number, false> {
  const says = { type: "must be epoch seconds", minimum: "must be epoch seconds" };
  return { schema: { type: ["number", "null"], minimum: 0, says }, required: false };
}

/**
 * CreateLegacyWebhookEvent and CreateEventExtDevice: a Note-shaped object; members not named
 * here are kept in the event as given.
 */
export const WEBHOOK_EVENT = body({
  file: text({ required: true }),
  body: object(),
  payload: text(),
  when: epochSeconds(),
});

/** Login: the texts are checked by the handler, which answers one text for any fault. */
export const LOGIN = body({ username: anyValue(), password: anyValue() });

/** The console's sign-in form (`POST /console/api/login`): the fields a browser form names. */
export const CONSOLE_LOGIN = body({ email: anyValue(), password: anyValue() });

/** The console's route test (`POST /console/api/projects/P/routes/R/test`): the sample event. */
export const ROUTE_TEST = body({
  device: text({ required: true }),
  file: text({ required: true }),
  body: object(),
  payload: text(),
});
