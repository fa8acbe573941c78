// The SQL of the devices table's writes, shared by both backends where it can be.

/** The devices table's columns a record fills, on both backends, in `deviceValues`'s order. */
export const DEVICE_COLUMNS = `uid, project_uid, product_uid, serial_number, provisioned, last_activity, disabled,
  sku, firmware_module, firmware_module_version, firmware_host, voltage, temperature, details,
  location_text, public_key, connected, connectivity_assurance`;
export const DEVICE_PLACES = Array.from({ length: 18 }, () => "?").join(", ");

/** What writing a known device's record again changes (both backends). */
export const DEVICE_UPSERT = `ON CONFLICT (uid) DO UPDATE SET product_uid = excluded.product_uid,
  serial_number = excluded.serial_number, provisioned = excluded.provisioned,
  last_activity = excluded.last_activity, disabled = excluded.disabled, sku = excluded.sku,
  firmware_module = excluded.firmware_module, firmware_module_version = excluded.firmware_module_version,
  firmware_host = excluded.firmware_host, voltage = excluded.voltage, temperature = excluded.temperature,
  details = excluded.details, location_text = excluded.location_text, public_key = excluded.public_key,
  connected = excluded.connected, connectivity_assurance = excluded.connectivity_assurance`;

/**
 * A known device's columns and document written from a record (DEVICE_COLUMNS' values from the
 * third on; the document, the uid), only if its document is still the one given last (else nothing
 * changes). Its uid and project are left alone (setting a key makes SQLite check the tables
 * referring to it; the project cannot change), and so is its serial number with `serial` false
 * (unchanged): SQLite rewrites the entries of every index on a column an UPDATE sets, changed or
 * not, and devices_project and devices_serial would each cost a page of the log at every session.
 */
const updateIfUnchanged = (serial: boolean): string =>
  `UPDATE devices SET ${DEVICE_COLUMNS.split(",")
    .slice(2)
    .map((column) => column.trim())
    .filter((column) => serial || column !== "serial_number")
    .map((column) => `${column} = ?`)
    .join(", ")}, doc = ? WHERE uid = ? AND doc = ?`;
export const UPDATE_IF_UNCHANGED = updateIfUnchanged(true);
export const UPDATE_IF_UNCHANGED_SAME_SERIAL = updateIfUnchanged(false);
