/**
 * What woke a device's waiting session: a signal was queued, its hub-side notefiles changed, or
 * its environment variables changed (device, fleet or project scope).
 */
export type DeviceChange = "signal" | "notes" | "env";

/**
 * Tells the device sync, in memory, that something waits for a device: a `signals` request with
 * `wait` (continuous mode) answers as soon as it hears of it. The signal route and the notes
 * service call `notify` once their change is committed; nothing is stored here. Over a store
 * several hub processes share, `relayTo` passes each change on to the others (whose `notifyHere`
 * wakes their own waits: the process holding a device's session may be another one).
 */
export class SyncNotifier {
  readonly #listeners = new Map<string, Set<(change: DeviceChange) => void>>();
  readonly #awaited = new Map<string, (() => void)[]>();
  #relay: ((deviceUid: string, change: DeviceChange) => void) | undefined;

  /** Wakes every session waiting on the device, in this process and (relayed) in the others. */
  notify(deviceUid: string, change: DeviceChange): void {
    this.notifyHere(deviceUid, change);
    this.#relay?.(deviceUid, change);
  }

  /** Wakes the sessions of this process waiting on the device. */
  notifyHere(deviceUid: string, change: DeviceChange): void {
    for (const listener of [...(this.#listeners.get(deviceUid) ?? [])]) listener(change);
  }

  /** Passes every change notified here on to `relay` too (the other hub processes). */
  relayTo(relay: (deviceUid: string, change: DeviceChange) => void): void {
    this.#relay = relay;
  }

  /** Listens for the device's changes; the function returned stops listening. */
  listen(deviceUid: string, listener: (change: DeviceChange) => void): () => void {
    let set = this.#listeners.get(deviceUid);
    if (!set) this.#listeners.set(deviceUid, (set = new Set()));
    set.add(listener);
    const awaited = this.#awaited.get(deviceUid);
    this.#awaited.delete(deviceUid);
    for (const resolve of awaited ?? []) resolve();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(deviceUid) === set) this.#listeners.delete(deviceUid);
    };
  }

  /**
   * Resolves once a session listens for the device (at once if one does): a wait is then held,
   * its time running on the hub clock (tests move a fake clock only after this).
   */
  listeningFor(deviceUid: string): Promise<void> {
    if (this.#listeners.has(deviceUid)) return Promise.resolve();
    return new Promise((resolve) => {
      const awaited = this.#awaited.get(deviceUid) ?? [];
      this.#awaited.set(deviceUid, [...awaited, resolve]);
    });
  }

  /** True while a session listens for the device. */
  isListening(deviceUid: string): boolean {
    return this.#listeners.has(deviceUid);
  }

  /** Devices with a session listening now (tests). */
  get listening(): number {
    return this.#listeners.size;
  }
}
