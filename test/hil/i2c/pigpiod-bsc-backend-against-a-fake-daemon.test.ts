import { afterEach, describe, expect, it } from "vitest";
import { I2cTarget } from "../../../firmware/host/I2cTarget.js";
import { PigpiodBscBackend, bscStatus } from "../../../hil/i2c/PigpiodBscBackend.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import { bootTestModule } from "../../support/moduleFixture.js";
import { FakePigpiod } from "./FakePigpiod.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function rig(address = 0x17) {
  const daemon = await FakePigpiod.start();
  cleanups.push(() => daemon.stop());
  const t = await bootTestModule();
  const target = new I2cTarget(t.module, { address });
  const backend = new PigpiodBscBackend({ clock: new SystemClock(), port: daemon.port, pollMs: 1 });
  await backend.attach(target);
  cleanups.push(() => backend.close());
  const send = (text: string) => daemon.controllerSend(address, enc.encode(text));
  const query = (want: number) => daemon.controllerQuery(address, want);
  const receive = async () => {
    let out: number[] = [];
    await daemon.until(() => target.available > 0, "a reply");
    let { available } = await query(0);
    while (available > 0) {
      const r = await query(Math.min(available, 14));
      out = out.concat(r.data);
      available = r.available;
    }
    return dec.decode(Uint8Array.from(out));
  };
  return { daemon, t, target, backend, send, query, receive };
}

describe("pigpiod BSC backend (against a fake pigpiod)", () => {
  it("turns the peripheral on at the target's address, and off on close", async () => {
    const r = await rig(0x17);
    expect(r.daemon.address).toBe(0x17);
    expect(r.daemon.control & 0x305).toBe(0x305);
    await r.backend.close();
    expect(r.daemon.control).toBe(0);
  });

  it("carries a request and its reply through the 16-byte FIFOs", async () => {
    const r = await rig();
    await r.send('{"req":"echo","text":"via pigpiod"}\n');
    expect(await r.receive()).toBe('{"text":"via pigpiod"}\r\n');
  });

  it("answers the lone-newline reset", async () => {
    const r = await rig();
    await r.send("\n");
    expect(await r.receive()).toBe("\r\n");
  });

  it("loses bytes when a host writes more than the FIFO holds (note-c's default MTU)", async () => {
    const r = await rig();
    const chunk = [...enc.encode('{"req":"echo","text":"0123456789"}').subarray(0, 30)];
    r.daemon.controllerWrite(0x17, [30, ...chunk]);
    expect(r.daemon.overruns).toBe(15);
    await r.daemon.until(() => r.target.stats.malformedWrites === 1, "the torn write delivered as malformed");
  });

  it("decodes the bscXfer status word", () => {
    const s = bscStatus((3 << 16) | (2 << 11) | (5 << 6) | 0x10);
    expect(s).toEqual({ copiedToTx: 3, rxCount: 2, txCount: 5, receiveBusy: false, txEmpty: true });
  });

  it("reports a daemon that is not there", async () => {
    const backend = new PigpiodBscBackend({ clock: new SystemClock(), port: 1 });
    const t = await bootTestModule();
    await expect(backend.attach(new I2cTarget(t.module))).rejects.toThrow(/pigpiod/);
  });
});
