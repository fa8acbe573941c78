import type { JsonObject } from "../../core/json.js";
import { penaltySettingInvalid } from "../errors.js";
import { DEFAULT_PENALTY, PENALTY_KEY, penaltySettings, type PenaltySettings } from "../sync/PenaltyBox.js";
import { NOT_LORA } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** The network registration penalty box: its state, leaving it, and its backoff settings. */
export const penaltyRequests: RequestTable = {
  // The schema's "No Active Penalty" sample is {"minutes":0,"count":0}: both are always sent.
  "card.wireless.penalty": { handler: cardWirelessPenalty, variants: NOT_LORA, keep: ["minutes", "count"] },
};

/**
 * `reset:true` opens the registration box and starts its count again; `set:true` changes the
 * backoff (`min`, `add`, `rate`, `max`; the others keep their values; `set` alone restores the
 * defaults). The reply: consecutive failures (`count`), minutes since the first (`minutes`), and
 * in a box the seconds left and its status.
 */
function cardWirelessPenalty({ args, module }: RequestContext): JsonObject {
  const schedule = module.schedule;
  if (args.bool("reset")) {
    schedule.penalty.reset();
    schedule.plan();
  }
  const fields = {
    min: args.int("min"),
    add: args.int("add"),
    rate: args.number("rate"),
    max: args.int("max"),
  };
  if (args.bool("set")) {
    const given = Object.values(fields).some((v) => v !== undefined);
    const base = given ? penaltySettings(module.notebox) : DEFAULT_PENALTY;
    const next: PenaltySettings = {
      min: fields.min ?? base.min,
      add: fields.add ?? base.add,
      rate: fields.rate ?? base.rate,
      max: fields.max ?? base.max,
    };
    if (!(next.min >= 1)) throw penaltySettingInvalid("min", next.min, "at least 1 minute");
    if (!(next.add >= 0)) throw penaltySettingInvalid("add", next.add, "0 minutes or more");
    if (!(next.rate >= 1)) throw penaltySettingInvalid("rate", next.rate, "1.0 or more");
    if (!(next.max >= next.min)) throw penaltySettingInvalid("max", next.max, "at least min");
    const same = (Object.keys(next) as (keyof PenaltySettings)[]).every(
      (k) => next[k] === DEFAULT_PENALTY[k],
    );
    module.notebox.setConfig(PENALTY_KEY, same ? undefined : next);
  }
  const now = module.clock.now();
  const tally = schedule.penalty.registrationTally(now);
  const box = schedule.boxed();
  const inBox = box?.kind === "registration" ? box : undefined;
  return {
    ...(inBox ? { seconds: inBox.seconds } : {}),
    minutes: tally.minutes,
    ...(inBox ? { status: inBox.status } : {}),
    count: tally.count,
  };
}
