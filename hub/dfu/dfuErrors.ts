import { HttpError } from "../HttpError.js";
import { FIRMWARE_TYPES } from "../store/FirmwareStore.js";

/**
 * The firmware and DFU routes' own error texts (the rest come from hub/errors.ts). Ours, as the
 * hosted service's wording is not public; clients test the status code.
 */
const bad = (text: string): HttpError => new HttpError(400, text);

export const firmwareTypeInvalid = (): HttpError =>
  bad(`firmwareType must be one of ${FIRMWARE_TYPES.join(", ")}`);
export const dfuActionInvalid = (): HttpError => bad("the DFU action must be update or cancel");
export const hostFirmwareOnly = (what: string): HttpError =>
  bad(`only host firmware can be ${what} (the definition allows firmwareType host here)`);
export const firmwareBodyEmpty = (): HttpError =>
  bad("the request body is the firmware image (application/octet-stream), and it is empty");
export const firmwareTooLarge = (limit: number): HttpError =>
  new HttpError(413, `a firmware image may be at most ${limit} bytes`);
export const dfuFilenameRequired = (): HttpError =>
  bad("filename is required: the stored name of the image to update to (as the firmware list shows it)");
export const contentMd5Malformed = (): HttpError =>
  bad(
    "Content-MD5 must be the base64 of the image's 16-byte MD5 digest (RFC 1864, 24 characters ending in ==), or its 32 hex digits",
  );
export const contentMd5Mismatch = (given: string, actual: string): HttpError =>
  bad(
    `the image's MD5 is ${actual}, not the ${given} its Content-MD5 says: it was damaged on its way (nothing was stored)`,
  );
