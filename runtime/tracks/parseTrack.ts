import { parseGpx } from "./parseGpx.js";
import { parseNmea } from "./parseNmea.js";
import { Track, type TrackOptions } from "../../firmware/world/Track.js";
import { TrackParseError } from "../../firmware/world/TrackParseError.js";

/**
 * A playable track from the text of a GPX document or an NMEA log, told apart by their first
 * character (`<` or `$`). Throws only TrackParseError, whose message names the problem and line.
 */
export function parseTrack(text: string, options: TrackOptions = {}): Track {
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (start.startsWith("<")) return Track.fromPoints(parseGpx(text), options);
  if (start.startsWith("$")) return Track.fromPoints(parseNmea(text), options);
  if (start === "") throw new TrackParseError("the track file is empty");
  throw new TrackParseError(
    "not a track file: expected a GPX document (<gpx ...>) or an NMEA log ($GPRMC,...)",
  );
}
