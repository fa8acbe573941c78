import type { FakeClock } from "../../../runtime/FakeClock.js";
import type { I2cController } from "../../../hil/i2c/I2cController.js";

export interface NoteI2cHostOptions {
  readonly address?: number;
  /** Largest data chunk per write and per read (note-c's default MTU is 30). */
  readonly mtu?: number;
  /** Pause between a query and its read (note-arduino: 2 ms). */
  readonly queryGapMs?: number;
  /** Pause between polls while waiting for a reply. */
  readonly pollMs?: number;
}

/**
 * A host speaking the serial-over-I2C protocol the way the host libraries do (header checks of
 * note-arduino, completion rule of note-c), on a fake clock. Throws on what a host would reject.
 */
export function noteI2cHost(bus: I2cController, clock: FakeClock, options: NoteI2cHostOptions = {}) {
  const address = options.address ?? 0x17;
  const mtu = options.mtu ?? 30;
  const queryGapMs = options.queryGapMs ?? 2;
  const pollMs = options.pollMs ?? 50;

  async function send(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length; at += mtu) {
      const chunk = bytes.subarray(at, Math.min(at + mtu, bytes.length));
      const result = await bus.write(address, Uint8Array.from([chunk.length, ...chunk]));
      if (!result.acked) throw new Error(`write NACK (${result.nack})`);
      await clock.advance(1);
    }
  }

  /** One query + read: the chunk's data and what is left. */
  async function readChunk(want: number): Promise<{ data: Uint8Array; available: number }> {
    const q = await bus.write(address, Uint8Array.from([0, want]));
    if (!q.acked) throw new Error(`query NACK (${q.nack})`);
    await clock.advance(queryGapMs);
    const r = await bus.read(address, want + 2);
    if (!r.acked) throw new Error("read NACK");
    const available = r.bytes[0]!;
    if (r.bytes[1] !== want) throw new Error(`unexpected protocol byte count: ${r.bytes[1]} != ${want}`);
    if (available > 253) throw new Error(`available too large (${available} > 253)`);
    return { data: r.bytes.subarray(2), available };
  }

  /** Polls until data is available, then reads until a newline ends the data with nothing left. */
  async function receive(timeoutMs = 30_000): Promise<Uint8Array> {
    const parts: number[] = [];
    let available = 0;
    const deadline = clock.now() + timeoutMs;
    while (available === 0) {
      ({ available } = await readChunk(0));
      if (available > 0) break;
      if (clock.now() > deadline) throw new Error("timeout waiting for a reply");
      await clock.advance(pollMs);
    }
    for (;;) {
      const { data, available: left } = await readChunk(Math.min(available, mtu));
      parts.push(...data);
      available = left;
      if (available === 0 && parts[parts.length - 1] === 0x0a) break;
      if (available === 0) {
        // note-c keeps waiting for the rest of a line.
        if (clock.now() > deadline) throw new Error("timeout waiting for the end of the reply");
        await clock.advance(pollMs);
        ({ available } = await readChunk(0));
      }
    }
    return Uint8Array.from(parts);
  }

  /** note-c's reset drain: reads whatever arrives during `ms`, polling every `pollMs`. */
  async function drain(ms = 500): Promise<Uint8Array> {
    const out: number[] = [];
    const end = clock.now() + ms;
    while (clock.now() < end) {
      let { available } = await readChunk(0);
      while (available > 0) {
        const chunk = await readChunk(Math.min(available, mtu));
        out.push(...chunk.data);
        available = chunk.available;
      }
      await clock.advance(pollMs);
    }
    return Uint8Array.from(out);
  }

  async function request(json: string): Promise<string> {
    await send(new TextEncoder().encode(json + "\n"));
    await clock.advance(6);
    return new TextDecoder().decode(await receive());
  }

  return { send, readChunk, receive, drain, request, mtu };
}
