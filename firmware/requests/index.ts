import { attnRequests } from "./attn.js";
import { auxRequests } from "./aux.js";
import { binaryRequests } from "./binary.js";
import { cardRequests } from "./card.js";
import { cardConsoleRequests } from "./cardConsole.js";
import { dfuRequests } from "./dfu.js";
import { echoRequests } from "./echo.js";
import { envRequests } from "./env.js";
import { fileRequests } from "./file.js";
import { hubRequests } from "./hub.js";
import { locationRequests } from "./location.js";
import { motionRequests } from "./motion.js";
import { noteRequests } from "./note.js";
import { ntnRequests } from "./ntn.js";
import { penaltyRequests } from "./penalty.js";
import { powerRequests } from "./power.js";
import type { RequestTable } from "./RequestTable.js";
import { radioRequests } from "./radio.js";
import { sensorRequests } from "./sensors.js";
import { syncRequests } from "./sync.js";
import { varRequests } from "./var.js";
import { webRequests } from "./web.js";
import { wifiRequests } from "./wifi.js";

/** Every request family the module answers. */
export const allRequests: readonly RequestTable[] = [
  echoRequests,
  noteRequests,
  fileRequests,
  varRequests,
  envRequests,
  hubRequests,
  syncRequests,
  penaltyRequests,
  cardRequests,
  binaryRequests,
  attnRequests,
  locationRequests,
  motionRequests,
  sensorRequests,
  auxRequests,
  dfuRequests,
  webRequests,
  radioRequests,
  cardConsoleRequests,
  ntnRequests,
  wifiRequests,
  powerRequests,
];
