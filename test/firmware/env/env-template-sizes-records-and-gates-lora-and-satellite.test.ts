import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("env.template", () => {
  it("reports the bytes of one record from the type hints", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "env.template", body: { env_var_int: 11, env_var_string: "10" } })).toEqual({
      bytes: 11,
    });
    expect(
      await t.req({
        req: "env.template",
        body: { b: true, i2: 12, u8: 28, f: 12.1, d: 18.1, legacy: 1, n: 42, x: 23.5, s: "sensor" },
      }),
    ).toEqual({ bytes: 1 + 2 + 8 + 2 + 8 + 4 + 4 + 8 + 7 });
  });

  it("rejects hints that are not a boolean, number or string, keeping the previous template", async () => {
    const t = await bootTestModule({ variant: "lora" });
    await t.req({ req: "env.template", body: { a: 11 } });
    for (const hint of [{ nested: 1 }, [1], null]) {
      const reply = await t.req({ req: "env.template", body: { a: 11, bad: hint } });
      expect(reply.err).toBe("env.template: bad must be a boolean, number or string type hint");
    }
    await t.req({ req: "env.default", name: "a", text: "1" });
    expect((await t.req({ req: "env.get" })).body).toEqual({ a: "1" });
    expect((await t.req({ req: "env.template", body: "x" })).err).toMatch(/\{io\}/);
  });

  it.each(["lora", "ntn"])(
    "is required before env.get on %s, and only its names can be read",
    async (variant) => {
      const t = await bootTestModule({ variant });
      await t.req({ req: "env.default", name: "rate", text: "5" });
      await t.req({ req: "env.default", name: "other", text: "x" });
      expect((await t.req({ req: "env.get" })).err).toBe(
        `env.get: a ${variant} module needs an env.template before it can read environment variables`,
      );
      expect(await t.req({ req: "env.template", body: { RATE: 11 } })).toEqual({ bytes: 1 });
      expect((await t.req({ req: "env.get" })).body).toEqual({ rate: "5" });
      expect((await t.req({ req: "env.get", name: "rate" })).text).toBe("5");
      expect((await t.req({ req: "env.get", name: "other" })).text).toBeUndefined();
      // Clearing the template (no body) makes env.get fail again.
      expect(await t.req({ req: "env.template" })).toEqual({});
      expect((await t.req({ req: "env.get" })).err).toMatch(/needs an env.template/);
    },
  );

  it("is not needed on cellular and WiFi modules", async () => {
    for (const variant of ["cell", "cell-wifi", "wifi"]) {
      const t = await bootTestModule({ variant });
      await t.req({ req: "env.default", name: "rate", text: "5" });
      expect((await t.req({ req: "env.get" })).body).toEqual({ rate: "5" });
    }
  });
});
