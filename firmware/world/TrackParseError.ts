/**
 * A track file (GPX or NMEA) or a list of track points that cannot be played. The message says
 * what is wrong and where (line numbers count from 1), in words a person at the command line can
 * act on; parsers throw nothing else, whatever the input.
 */
export class TrackParseError extends Error {
  override readonly name = "TrackParseError";

  constructor(
    message: string,
    /** Line of the input the problem is on, when it is on one. */
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}
