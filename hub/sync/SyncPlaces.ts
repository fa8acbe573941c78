import type { LocationRecord } from "../store/records.js";
import { packagedPlaceNames, type PlaceNameLookup } from "./placeNames.js";
import { packagedZoneLookup, type ZoneLookup } from "./timeZone.js";

/**
 * Places as the hub keeps them: named (the packaged gazetteer) and in their time zone (the
 * optional zone package). Both lookups load once, outside any transaction (they may read files).
 */
export class SyncPlaces {
  #zoneLookup: Promise<ZoneLookup | undefined> | undefined;
  #zoneOf: ZoneLookup = () => undefined;
  #zonesLoaded: { readonly lookup: ZoneLookup | undefined } | undefined;
  #placeNames: Promise<PlaceNameLookup | undefined> | undefined;
  #nameOf: PlaceNameLookup = () => undefined;

  constructor(options: { zoneLookup?: ZoneLookup | false; placeNames?: PlaceNameLookup | false }) {
    if (options.zoneLookup === false) this.#zoneLookup = Promise.resolve(undefined);
    else if (options.zoneLookup) this.#zoneLookup = Promise.resolve(options.zoneLookup);
    if (options.placeNames === false) this.#placeNames = Promise.resolve(undefined);
    else if (options.placeNames) this.#placeNames = Promise.resolve(options.placeNames);
  }

  /** The zone lookup, loaded once (outside any transaction: it may read the file system). */
  async zones(): Promise<ZoneLookup | undefined> {
    this.#zoneLookup ??= Promise.resolve(packagedZoneLookup());
    const lookup = await this.#zoneLookup;
    if (lookup) this.#zoneOf = lookup;
    this.#zonesLoaded = { lookup };
    return lookup;
  }

  /** The zone lookup once `zones` has loaded it (no promise to wait on then), else undefined. */
  loadedZones(): { readonly lookup: ZoneLookup | undefined } | undefined {
    return this.#zonesLoaded;
  }

  /** The town-name lookup, loaded at the first place to name (outside any transaction). */
  async names(): Promise<void> {
    this.#placeNames ??= packagedPlaceNames().catch(() => undefined);
    const lookup = await this.#placeNames;
    if (lookup) this.#nameOf = lookup;
  }

  /**
   * A place as the device record and the documents keep it: named, in its zone. A bound function,
   * handed to every note's event as it is.
   */
  readonly located = (lat: number, lon: number, whenSec: number): LocationRecord => {
    const named = this.#nameOf(lat, lon);
    return {
      whenSec: Math.floor(whenSec),
      name: named?.name ?? "",
      country: named?.country ?? "",
      timezone: this.#zoneOf(lat, lon) ?? "",
      latitude: lat,
      longitude: lon,
    };
  };
}
