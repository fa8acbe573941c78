import type * as nodeCrypto from "node:crypto";
import { createHmac } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { SessionTickets } from "../../../hub/sync/SessionTickets.js";

vi.mock("node:crypto", async (original) => {
  const crypto = await original<typeof nodeCrypto>();
  return { ...crypto, createHmac: vi.fn(crypto.createHmac) };
});

const PEM =
  "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
const DAY = 24 * 60 * 60_000;

/**
 * A module presents the same ticket at every session until it expires: the hub remembers the last
 * ticket whose seal checked per device and product, so a resumed open costs no HMAC. Only the seal
 * is remembered: any other text (a forged or altered ticket, another device's) is checked in full,
 * and the expiry is checked at every open.
 */
describe("session tickets checked before", () => {
  const hmacs = () => vi.mocked(createHmac).mock.calls.length;

  it("take a ticket presented again without another HMAC, and refuse it once it expired", () => {
    const tickets = new SessionTickets(DAY, new Uint8Array(32).fill(3));
    const ticket = tickets.issue("dev:1", "com.x:y", PEM, 1000 + DAY)!;
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).toMatchObject({ expires: 1000 + DAY });
    const made = hmacs();
    for (let i = 0; i < 5; i++)
      expect(tickets.check(ticket, "dev:1", "com.x:y", 2000 + i)).not.toBeTypeOf("string");
    expect(hmacs()).toBe(made);
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1001 + DAY)).toBe("the session ticket has expired");
  });

  it("check any other text in full: an altered ticket, and the same ticket for another device", () => {
    const tickets = new SessionTickets(DAY, new Uint8Array(32).fill(4));
    const ticket = tickets.issue("dev:1", "com.x:y", PEM, 1000 + DAY)!;
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).not.toBeTypeOf("string");
    const last = ticket.at(-2) === "A" ? "B" : "A";
    const altered = `${ticket.slice(0, -2)}${last}${ticket.at(-1)}`;
    expect(tickets.check(altered, "dev:1", "com.x:y", 1000)).toBe(
      "the session ticket was not issued to this device and product",
    );
    expect(tickets.check(ticket, "dev:2", "com.x:y", 1000)).toBe(
      "the session ticket was not issued to this device and product",
    );
    // The ticket that checked is still taken after the refusals.
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).not.toBeTypeOf("string");
  });

  it("check the ticket of a device in full for another product, and one of the same length differing anywhere", () => {
    const tickets = new SessionTickets(DAY, new Uint8Array(32).fill(7));
    const ticket = tickets.issue("dev:1", "com.x:y", PEM, 1000 + DAY)!;
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).not.toBeTypeOf("string");
    expect(tickets.check(ticket, "dev:1", "com.x:z", 1000)).toBe(
      "the session ticket was not issued to this device and product",
    );
    for (const at of [0, 7, ticket.length - 1]) {
      const other = ticket[at] === "B" ? "C" : "B";
      const altered = `${ticket.slice(0, at)}${other}${ticket.slice(at + 1)}`;
      // Not taken as the ticket remembered: read in full, and refused.
      expect(tickets.check(altered, "dev:1", "com.x:y", 1000)).toBeTypeOf("string");
    }
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).not.toBeTypeOf("string");
  });

  it("forget what they checked when the hub takes another key", () => {
    const tickets = new SessionTickets(DAY, new Uint8Array(32).fill(5));
    const ticket = tickets.issue("dev:1", "com.x:y", PEM, 1000 + DAY)!;
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).not.toBeTypeOf("string");
    tickets.useKey(new Uint8Array(32).fill(6));
    expect(tickets.check(ticket, "dev:1", "com.x:y", 1000)).toMatch(/another key of the hub/);
  });
});
