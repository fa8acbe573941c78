/** DeviceUID shape: `dev:` then the module's identifier (IMEI digits, or hex). */
export const DEVICE_UID = /^dev:[0-9A-Za-z]{1,64}$/;
