/** DeviceUID shape (protocol/deviceUid.ts): `dev:` then the module's identifier (IMEI digits, or hex). */
export { DEVICE_UID } from "../../protocol/deviceUid.js";
