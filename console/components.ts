import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError } from "./api.js";
import { html } from "./html.js";

/** What the panels of a device's page are given. */
export interface DeviceProps {
  project: string;
  device: string;
  canEdit: boolean;
}

/** What a page loads: its data, the error the hub gave, and a way to load it again. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` when `deps` change; the hub's error text is kept to show. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(e instanceof Error ? e.message : String(e));
        setLoading(false);
      },
    );
    return () => void (current = false);
  }, [...deps, round]);
  return { data, error, loading, reload: useCallback(() => setRound((r) => r + 1), []) };
}

/** Runs a change; its error (the hub's own text) is kept for the form to show. */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run: (action: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e instanceof ApiError || e instanceof Error ? e.message : String(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export function ErrorText(props: { error: string | undefined }) {
  return props.error ? html`<p class="error" role="alert">${props.error}</p>` : null;
}

export function Loading<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { loaded } = props;
  if (loaded.error !== undefined) return html`<${ErrorText} error=${loaded.error} />`;
  if (loaded.data === undefined) return html`<p class="muted">Loading…</p>`;
  return html`${props.children(loaded.data)}`;
}

/** An epoch time (seconds, milliseconds or ISO text) as local date and time. */
export function when(value: unknown): string {
  if (value === undefined || value === null || value === "") return "—";
  const ms = typeof value === "number" ? (value < 1e11 ? value * 1000 : value) : Date.parse(String(value));
  if (!Number.isFinite(ms)) return String(value);
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

/** How long ago, shortly: "42 s ago", "3 min ago", "2 h ago", "5 d ago". */
export function ago(value: unknown, now = Date.now()): string {
  if (value === undefined || value === null || value === "") return "never";
  const ms = typeof value === "number" ? (value < 1e11 ? value * 1000 : value) : Date.parse(String(value));
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export function bytes(n: unknown): string {
  const v = typeof n === "number" ? n : 0;
  if (v < 1024) return `${v} B`;
  return v < 1048576 ? `${(v / 1024).toFixed(1)} KiB` : `${(v / 1048576).toFixed(1)} MiB`;
}

/** JSON shown as text (never markup), cut to `max` characters. */
export function jsonText(value: unknown, max = 400): string {
  const text = value === undefined ? "" : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A page's heading and, on the right, its actions. */
export function Heading(props: { title: string; children?: ComponentChildren }) {
  return html`<div class="heading">
    <h1>${props.title}</h1>
    <div class="actions">${props.children}</div>
  </div>`;
}

export function Pager(props: { page: number; hasMore: boolean; onPage: (page: number) => void }) {
  return html`<div class="pager">
    <button type="button" disabled=${props.page <= 1} onClick=${() => props.onPage(props.page - 1)}>
      ‹ Newer
    </button>
    <span>page ${props.page}</span>
    <button type="button" disabled=${!props.hasMore} onClick=${() => props.onPage(props.page + 1)}>
      Older ›
    </button>
  </div>`;
}

/** A device's signal as its newest session recorded it (the radio of `sessionRadio`). */
export interface Signal {
  rat?: string;
  bars?: number;
  rssi?: number;
  rsrp?: number;
  when?: number;
}

/** A signal in a few words: "lte 3 bars -71 dBm" ("—" when nothing is known). */
export function signalText(s: Signal | undefined): string {
  if (!s) return "—";
  const parts = [s.rat ?? ""];
  if (typeof s.bars === "number") parts.push(`${s.bars} bar${s.bars === 1 ? "" : "s"}`);
  if (typeof s.rssi === "number") parts.push(`${s.rssi} dBm`);
  return parts.filter(Boolean).join(" ") || "—";
}

/** The latest signal of each device named, from the hub's session records (at most 100 at a time). */
export async function loadSignals(project: string, devices: string[]): Promise<Record<string, Signal>> {
  if (devices.length === 0) return {};
  const path = `/console/api/projects/${encodeURIComponent(project)}/signals?${new URLSearchParams(devices.map((d) => ["deviceUID", d])).toString()}`;
  return (await api<{ signals: Record<string, Signal> }>(path)).signals;
}

/**
 * A payload (base64) as text that cannot break the page: its size in bytes and its first bytes in
 * hex ("5 B: 00 ff 3c 21 0a"); bytes that are not base64 are said to be so.
 */
export function payloadText(payload: unknown, shown = 8): string {
  if (typeof payload !== "string" || payload === "") return "";
  let raw: string;
  try {
    raw = atob(payload);
  } catch {
    return `${payload.length} characters, not base64`;
  }
  const head = Array.from(raw.slice(0, shown), (c) => c.charCodeAt(0).toString(16).padStart(2, "0"));
  return `${bytes(raw.length)}: ${head.join(" ")}${raw.length > shown ? " …" : ""}`;
}
