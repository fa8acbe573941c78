import { describe, expect, it } from "vitest";
import { CARD_KEYS } from "../../firmware/config/CardSettings.js";
import { readIdentity } from "../../firmware/ModuleIdentity.js";
import { MemoryKvStore } from "../../firmware/storage/MemoryKvStore.js";
import { Notebox } from "../../firmware/storage/Notebox.js";

/**
 * Every session reads the module's identity (its DeviceUID record joined with its key record):
 * the two are joined once, and joined anew when either record is replaced.
 */
describe("the module's identity", () => {
  it("is one object while its records stay, and a new one with the records of now", async () => {
    const box = await Notebox.open(new MemoryKvStore());
    expect(readIdentity(box)).toEqual({ device: "" });
    await box.transact(() => box.setConfig(CARD_KEYS.identity, { device: "dev:1" }));
    expect(readIdentity(box)).toEqual({ device: "dev:1" });
    await box.transact(() => box.setConfig(CARD_KEYS.key, { private: "a", public: "b" }));
    const first = readIdentity(box);
    expect(first).toEqual({ device: "dev:1", key: { private: "a", public: "b" } });
    expect(readIdentity(box)).toBe(first);
    await box.transact(() => box.setConfig(CARD_KEYS.key, { private: "c", public: "d" }));
    expect(readIdentity(box)).toEqual({ device: "dev:1", key: { private: "c", public: "d" } });
    await box.transact(() => box.setConfig(CARD_KEYS.identity, { device: "dev:2" }));
    expect(readIdentity(box)).toEqual({ device: "dev:2", key: { private: "c", public: "d" } });
    await box.transact(() => box.setConfig(CARD_KEYS.key, undefined));
    expect(readIdentity(box)).toEqual({ device: "dev:2" });
  });
});
