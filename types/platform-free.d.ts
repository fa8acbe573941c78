// The only globals the platform-free layers (core/, protocol/, firmware/) may use beyond the
// ECMAScript library: WHATWG text encoding, which every JavaScript runtime they run on has.
// tsconfig.core.json type-checks those layers with this file instead of Node's types, so that
// fetch, crypto, timers, Buffer and process do not exist there.

declare class TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}
