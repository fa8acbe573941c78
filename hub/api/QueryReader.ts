import * as errors from "../errors.js";
import type { Page } from "../store/records.js";

/** Page sizes: the spec's default, and this hub's documented maximum for device lists. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;
/** The definition's maximum (`pageSizeParam`), which events and sessions allow. */
export const MAX_DEFINED_PAGE_SIZE = 10_000;

type RawQuery = Record<string, string | string[] | undefined>;

const INTEGER = /^[+-]?\d{1,15}$/;

/**
 * Typed access to query arguments. Repeated keys give arrays (`name=a&name=b`, spec convention 2);
 * a malformed value is a 400 naming the argument, never a silent default.
 */
export class QueryReader {
  constructor(private readonly raw: RawQuery) {}

  #values(name: string): string[] {
    const v = this.raw[name];
    if (v === undefined) return [];
    return Array.isArray(v) ? v : [v];
  }

  has(name: string): boolean {
    return this.#values(name).length > 0;
  }

  /** A single-valued argument; an empty value counts as absent. */
  string(name: string): string | undefined {
    const values = this.#values(name);
    if (values.length > 1) throw errors.querySingle(name);
    const v = values[0];
    return v === undefined || v === "" ? undefined : v;
  }

  /** Every value of a repeatable argument, empty values dropped; `comma` also splits on commas. */
  list(name: string, options: { comma?: boolean } = {}): string[] {
    const out: string[] = [];
    for (const v of this.#values(name)) {
      for (const part of options.comma ? v.split(",") : [v]) {
        const trimmed = options.comma ? part.trim() : part;
        if (trimmed !== "") out.push(trimmed);
      }
    }
    return out;
  }

  int(name: string, options: { min?: number; max?: number } = {}): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!INTEGER.test(v.trim())) throw errors.queryInteger(name);
    const n = Number(v.trim());
    const min = options.min ?? Number.MIN_SAFE_INTEGER;
    const max = options.max ?? Number.MAX_SAFE_INTEGER;
    if (n < min || n > max) throw errors.queryRange(name, min, max);
    return n;
  }

  bool(name: string, fallback = false): boolean {
    const v = this.string(name);
    if (v === undefined) return fallback;
    switch (v.toLowerCase()) {
      case "true":
      case "1":
        return true;
      case "false":
      case "0":
        return false;
      default:
        throw errors.queryBoolean(name);
    }
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) throw errors.queryOneOf(name, allowed);
    return v as T;
  }

  /** Epoch seconds, given as an integer or as an ISO 8601 date-time. */
  date(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (INTEGER.test(v.trim())) return Number(v.trim());
    if (!/^\d{4}-\d{2}-\d{2}/.test(v)) throw errors.queryDate(name);
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) throw errors.queryDate(name);
    return Math.floor(ms / 1000);
  }

  /**
   * `startDate` and `endDate` as the definitions give them (epoch seconds, at least 0; ISO 8601
   * accepted too), `endDate` not before `startDate`.
   */
  dateRange(): { startSec: number | undefined; endSec: number | undefined } {
    const startSec = this.date("startDate");
    const endSec = this.date("endDate");
    for (const [name, value] of [
      ["startDate", startSec],
      ["endDate", endSec],
    ] as const) {
      if (value !== undefined && value < 0) throw errors.queryDateBeforeEpoch(name);
    }
    if (startSec !== undefined && endSec !== undefined && endSec < startSec) throw errors.queryDateOrder();
    return { startSec, endSec };
  }

  /** `pageSize` (default 50, at most `maxPageSize`) and `pageNum` (from 1). */
  page(maxPageSize = MAX_PAGE_SIZE): Page & { pageSize: number; pageNum: number } {
    const pageSize = this.int("pageSize", { min: 1, max: maxPageSize }) ?? DEFAULT_PAGE_SIZE;
    const pageNum = this.int("pageNum", { min: 1, max: 1_000_000_000 }) ?? 1;
    return { pageSize, pageNum, limit: pageSize, offset: (pageNum - 1) * pageSize };
  }
}
