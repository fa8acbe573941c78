/** What an impairment did, for the capture and for scenario failure reports. */
export interface ImpairmentEvent {
  /** The impairment: drop, duplicate, flip, insert, split, stall, disconnect, reconnect. */
  readonly impairment: string;
  /** Position (in this direction's input of the impairment) of the first byte affected. */
  readonly position: number;
  /** The bytes affected (dropped, duplicated, the flipped result, inserted); may be empty. */
  readonly bytes: Uint8Array;
  readonly info?: Record<string, unknown>;
}

export type ImpairmentListener = (event: ImpairmentEvent) => void;
