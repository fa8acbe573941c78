import type { JsonObject } from "../../core/json.js";
import type { FeedItem } from "./HubFeed.js";

/** Longest body shown on an event's line (the rest is cut, with an ellipsis). */
const BODY_CHARS = 160;

/** The time of day of an item, UTC, to the millisecond. */
function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

function bytes(n: unknown): string {
  const v = typeof n === "number" ? n : 0;
  return v < 1024
    ? `${v} B`
    : v < 1024 * 1024
      ? `${(v / 1024).toFixed(1)} KiB`
      : `${(v / 1048576).toFixed(1)} MiB`;
}

/** Control characters a device wrote would move a terminal's cursor: shown escaped instead. */
function printable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function cut(text: string, max = BODY_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function eventText(event: JsonObject): string {
  const parts: string[] = [];
  if (event["body"] !== undefined) parts.push(cut(JSON.stringify(event["body"])));
  const payload = event["payload"];
  if (typeof payload === "string" && payload !== "")
    parts.push(`+payload ${bytes(Math.floor((payload.length * 3) / 4))}`);
  if (typeof event["note"] === "string") parts.unshift(`note ${event["note"]}`);
  return parts.join(" ") || "{}";
}

function sessionEnd(period: JsonObject | undefined): string {
  if (!period) return "";
  const p = period;
  return (
    `, ${typeof p["duration"] === "number" ? p["duration"] : 0} s, ` +
    `${bytes(p["bytes_sent"])} up / ${bytes(p["bytes_rcvd"])} down, ` +
    `${typeof p["notes_sent"] === "number" ? p["notes_sent"] : 0} notes up / ` +
    `${typeof p["notes_rcvd"] === "number" ? p["notes_rcvd"] : 0} down`
  );
}

/** What an item says, without its time: one line, control characters escaped. */
export function feedText(item: FeedItem): string {
  switch (item.kind) {
    case "event":
      return printable(`event    ${item.deviceUid} ${item.file} ${eventText(item.event)}`);
    case "session":
      return printable(
        item.phase === "begin"
          ? `session  ${item.deviceUid} began${item.why ? ` (${item.why})` : ""}`
          : `session  ${item.deviceUid} ended${item.why ? `: ${item.why}` : ""}${sessionEnd(item.period)}`,
      );
    case "delivery": {
      const what = item.eventUid
        ? `${item.file || "web request"} of ${item.deviceUid}`
        : `web request of ${item.deviceUid}`;
      const outcome = item.failed
        ? `FAILED ${item.status}${item.text ? `: ${cut(item.text, 120)}` : ""}`
        : item.status;
      return printable(`delivery route ${item.routeUid} ${what} -> ${outcome} in ${item.durationMs} ms`);
    }
    case "dfu":
      return printable(
        `dfu      ${item.deviceUid} ${item.type} firmware ${item.filename}: ${item.phase}` +
          `${item.text ? ` (${cut(item.text, 120)})` : ""}, request ${item.state}`,
      );
  }
}

/** One human line per item: its time (UTC), then what happened. */
export function feedLine(item: FeedItem): string {
  return `${clockTime(item.atMs)} ${feedText(item)}`;
}
