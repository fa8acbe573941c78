// The package's main entry, `cardsim`: a hub, a module, both together, and the module's ports.
// Scenarios for tests are in `cardsim/harness`.

export { startLocal, type LocalSetup, type StartLocalOptions } from "./startLocal.js";
export {
  assembleModule,
  RigPartError,
  type ModuleRig,
  type ModuleRigOptions,
  type RigAddress,
  type RigI2c,
} from "./assembleModule.js";
export {
  DEFAULT_LISTEN,
  DEFAULT_TLS_LISTEN,
  startHub,
  type HubCredentials,
  type RunningHub,
  type StartHubOptions,
} from "./startHub.js";
export { HOSTED_RATE_LIMITS, parseRateLimits, type RateLimits } from "../hub/auth/RateLimiter.js";
export { createHubServices, type HubServices, type HubServicesOptions } from "../hub/HubServices.js";
export { buildHubApp, type HubAppOptions } from "../hub/HubApp.js";

export {
  SimulatedModule,
  type PowerOff,
  type SimulatedModuleEvents,
  type SimulatedModuleOptions,
} from "./SimulatedModule.js";
export { Module, type ModuleOptions } from "../firmware/Module.js";
export { VARIANTS, resolveVariant, type Variant, type VariantName } from "../firmware/Variant.js";
export { ModuleLinkServer, attachSerialLink } from "../hil/ModuleLinkServer.js";
export { HostLineClient } from "../hil/HostLineClient.js";
export { openFlashStore } from "../hil/storage/openFlashStore.js";
export { I2cTarget } from "../firmware/host/I2cTarget.js";
export { SerialSession, type LineHandler } from "../firmware/host/SerialSession.js";

// Ports: what a module receives from outside, and the implementations that come with it.
export type { Clock, TimerHandle } from "../core/Clock.js";
export { SystemClock } from "./SystemClock.js";
export { FakeClock } from "./FakeClock.js";
export type { Random } from "../core/Random.js";
export { SeededRandom } from "../core/SeededRandom.js";
export type { Crypto, KeyPair } from "../core/Crypto.js";
export { SeededCrypto } from "../core/SeededCrypto.js";
export { WebCryptoCrypto } from "./WebCryptoCrypto.js";
export { SeededNodeCrypto } from "./SeededNodeCrypto.js";
export { InProcessHub, type InProcessHubOptions } from "./InProcessHub.js";
// Fleets: many modules with a workload against one hub (docs/fleet.md).
export { Fleet, type FleetHub, type FleetOptions, type FleetProgress } from "./fleet/Fleet.js";
export { runFleet, type FleetRun, type FleetRunOptions } from "./fleet/runFleet.js";
export {
  BUILT_IN_WORKLOADS,
  SENSORS_WORKLOAD,
  checkWorkload,
  parseWorkload,
  WorkloadError,
  type Workload,
  type GroupLoad,
  type NotefileLoad,
} from "./fleet/workload.js";
export { WORKLOAD_SCHEMA } from "./fleet/workloadSchema.js";
export { fleetDeviceUid, parseShard, type Shard } from "./fleet/fleetIdentity.js";
export type { FleetSession, FleetSummary } from "./fleet/FleetStats.js";

export {
  HubApi,
  HubApiError,
  type DfuDevices,
  type FirmwareType,
  type GetEventsQuery,
  type HubEvent,
  type HubListener,
  type HubQuery,
  type HubRequestBody,
  type HubResponse,
} from "./HubApi.js";
export {
  connectHubApi,
  HubElsewhereError,
  type RemoteHubApi,
  type RemoteHubApiOptions,
} from "./remoteHubApi.js";
export type { KvStore } from "../firmware/storage/KvStore.js";
export { MemoryKvStore } from "../firmware/storage/MemoryKvStore.js";
export { SimPowerSource, type PowerSource } from "../firmware/PowerSource.js";
export {
  SimRadioConditions,
  type RadioConditions,
  type RadioState,
} from "../firmware/radio/RadioConditions.js";
export { HubLinkError, type HubLink } from "../firmware/radio/HubLink.js";
export type { AttnPin } from "../firmware/attn/AttnPin.js";
export type { Surroundings } from "../firmware/world/Surroundings.js";
// The world around a module: position, tracks, motion, temperature, AUX lines (docs/world.md).
export { World, type PlayOptions } from "../firmware/world/World.js";
export { Track, type TrackOptions, type TrackPoint } from "../firmware/world/Track.js";
export type { GeoPoint } from "../firmware/world/geo.js";
export { parseTrack } from "./tracks/parseTrack.js";
export { parseGpx } from "./tracks/parseGpx.js";
export { parseNmea } from "./tracks/parseNmea.js";
export { MemoryLog, silentLog, type ModuleLog } from "../firmware/ModuleLog.js";
export type { ByteLink } from "../hil/links/ByteLink.js";
