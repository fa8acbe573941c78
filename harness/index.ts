// `cardsim/harness`: scenarios on the module's clock for a firmware team's own test suite (see
// docs/harness.md), the host emulators, the fake clock, capture and replay.

export { Scenario, ScenarioFailure, type ScenarioOptions, type ScenarioSerialOptions } from "./Scenario.js";
export {
  SyncTimeline,
  sessionEntry,
  isSession,
  type OtherEntry,
  type SessionEntry,
  type SessionResult,
  type TimelineEntry,
} from "./SyncTimeline.js";
export { ScenarioTimeout, VirtualTimeDriver, RealTimeDriver, type TimeDriver } from "./TimeDriver.js";
export type { HostLine, HostLineKind, HostLineMatch } from "./HostTraffic.js";
export type { HubEnvScopes } from "./hubEnvironment.js";
export type { NoteCHostOptions, ScenarioHost } from "./ScenarioHost.js";
export type { WorldAction } from "./WorldAction.js";
export type { PacingRule, WireLine } from "./SegmentPacing.js";

// Radio, supply, discharge and energy.
export { ScenarioRadio, type SignalFields } from "./ScenarioRadio.js";
export { ScenarioSupply, type SupplySource } from "./ScenarioPower.js";
export {
  DischargeCurve,
  DischargePlayer,
  parseDischarge,
  parseDischargeCsv,
  parseLinearDischarge,
  playDischarge,
  type DischargePoint,
  type PlayingDischarge,
} from "../runtime/DischargeCurve.js";
export {
  SimRadioConditions,
  SIGNAL_PRESETS,
  signalPreset,
  type RadioState,
  type SignalPreset,
} from "../firmware/radio/RadioConditions.js";
export { ENERGY_DEFAULTS, type EnergyRates, type EnergyReport } from "../firmware/power/EnergyMeter.js";

// The scenario's hub (`hub: "in-process"`): its REST API in process and on a loopback port.
export { InProcessHub, type InProcessHubOptions } from "../runtime/InProcessHub.js";
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
} from "../runtime/HubApi.js";

// Fleets: many modules with a workload against one hub (docs/fleet.md).
export { Fleet, type FleetHub, type FleetOptions, type FleetProgress } from "../runtime/fleet/Fleet.js";
export { runFleet, type FleetRun, type FleetRunOptions } from "../runtime/fleet/runFleet.js";
export {
  BUILT_IN_WORKLOADS,
  SENSORS_WORKLOAD,
  checkWorkload,
  parseWorkload,
  WorkloadError,
  type Workload,
  type GroupLoad,
  type NotefileLoad,
} from "../runtime/fleet/workload.js";
export { WORKLOAD_SCHEMA } from "../runtime/fleet/workloadSchema.js";
export { fleetDeviceUid, parseShard, type Shard } from "../runtime/fleet/fleetIdentity.js";
export type { FleetSession, FleetSummary } from "../runtime/fleet/FleetStats.js";

// Host emulators: note-c over serial or I2C.
export { NoteCHost, HostRestarted, type HostEvent } from "./host/NoteCHost.js";
export { NOTE_C_TIMING, type NoteCTiming } from "./host/NoteCTiming.js";
export { NoteCIap, type NoteCIapOptions, type IapResult } from "./host/NoteCIap.js";
export { SerialHostTransport, type SerialHostTransportOptions } from "./host/SerialHostTransport.js";
export { I2cHostTransport } from "./host/I2cHostTransport.js";
export { HostIoError, type HostTransport } from "./host/HostTransport.js";

// Clocks.
export { FakeClock } from "../runtime/FakeClock.js";
export { SystemClock } from "../runtime/SystemClock.js";
export type { Clock } from "../core/Clock.js";

// Capture and replay.
export { LinkCapture } from "../hil/capture/LinkCapture.js";
export { parseCapture, type ParsedCapture } from "./capture/parseCapture.js";
export { replayHostTraffic, type ReplayResult } from "./capture/replayHostTraffic.js";
export { describeDifferences, type LineDifference } from "./capture/lineDiff.js";
export { CapturedModule } from "./capture/CapturedModule.js";
export { CapturedI2cModule } from "./capture/CapturedI2cModule.js";

// Links, impairments, buses and boards for scenarios of one's own.
export { MemoryLink } from "../hil/links/MemoryLink.js";
export { StagedLink, type StagedLinkOptions } from "../hil/links/StagedLink.js";
export type { ByteLink } from "../hil/links/ByteLink.js";
export type { ImpairmentSpec, LinkImpairmentSpec } from "../hil/impair/Impairments.js";
export { SimI2cBus } from "../hil/i2c/SimI2cBus.js";
export { BSC, IDEAL, PICO, type I2cHardwareProfile } from "../hil/i2c/I2cHardwareProfile.js";
export type { I2cController } from "../hil/i2c/I2cController.js";
export { SimGpioChip } from "../hil/gpio/SimGpioChip.js";
export { buildBoard, type BoardRig, type BoardRigOptions } from "../boards/buildBoard.js";
export { SimulatedModule } from "../runtime/SimulatedModule.js";
export { I2cTarget } from "../firmware/host/I2cTarget.js";
// The world around the module, for scenarios that play a track (`sc.world.playTrack`).
export { World, type PlayOptions } from "../firmware/world/World.js";
export { Track, type TrackOptions, type TrackPoint } from "../firmware/world/Track.js";
export type { GeoPoint } from "../firmware/world/geo.js";
export { parseTrack } from "../runtime/tracks/parseTrack.js";
export { parseGpx } from "../runtime/tracks/parseGpx.js";
export { parseNmea } from "../runtime/tracks/parseNmea.js";
