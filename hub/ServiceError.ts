/**
 * Why a hub service refused a request: a rule of the hub, not of HTTP. The API maps each code to
 * its HTTP error in one place (`HubApp`); in-process callers test the code.
 */
export type ServiceErrorCode =
  /** The arguments break a rule the service checks (the API checks them first, with its own words). */
  | "invalid"
  /** The product named is not one of the project's. */
  | "product-elsewhere"
  /** A fleet named is not one of the project's. */
  | "fleet-elsewhere"
  /** The device belongs to another project. */
  | "device-elsewhere"
  /** The device has connected already, so it can no longer be provisioned. */
  | "device-active";

export class ServiceError extends Error {
  override readonly name = "ServiceError";

  constructor(
    readonly code: ServiceErrorCode,
    /** What the refusal is about (a ProductUID, FleetUID, DeviceUID or notefile name). */
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}
