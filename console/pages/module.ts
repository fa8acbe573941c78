import "uplot/dist/uPlot.min.css";
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { ErrorText, when } from "../components.js";
import { html } from "../html.js";
import { WorldMap } from "./devices.js";

interface Sample {
  atMs: number;
  volts: number;
  usb: boolean;
  mah: number;
  lat: number | null;
  lon: number | null;
}
interface Trace {
  atMs: number;
  request: string;
  reply: string | null;
}
interface Session {
  why: string;
  started: number;
  ended: number;
  ok: boolean;
  error: string | null;
  bytes: number;
  held: boolean;
}
interface ModuleState {
  device: string;
  sku: string;
  hub: Record<string, unknown>;
  samples: Sample[];
  trace: Trace[];
  sessions: Session[];
}

/** A line plot of one series over time (uPlot), redrawn as samples arrive. */
function Plot(props: { title: string; unit: string; samples: Sample[]; value: (s: Sample) => number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data = (): uPlot.AlignedData => [
    props.samples.map((s) => s.atMs / 1000),
    props.samples.map(props.value),
  ];
  useEffect(() => {
    plot.current = new uPlot(
      {
        title: props.title,
        width: 520,
        height: 220,
        series: [{}, { label: props.unit, stroke: "#0b6bcb", width: 1.5 }],
        axes: [{}, { label: props.unit }],
      },
      data(),
      box.current!,
    );
    return () => plot.current?.destroy();
  }, []);
  useEffect(() => plot.current?.setData(data()), [props.samples]);
  const last = props.samples.at(-1);
  return html`<figure class="plot" data-points=${props.samples.length}>
    <div ref=${box}></div>
    <figcaption>
      ${props.title}: <b class="readout">${last ? `${props.value(last).toFixed(3)} ${props.unit}` : "—"}</b>
    </figcaption>
  </figure>`;
}

/** Follows the module's stream, keeping what the page shows; says when it dropped and came back. */
function useModule(): { state: ModuleState | undefined; live: string; error: string | undefined } {
  const [state, setState] = useState<ModuleState | undefined>(undefined);
  const [live, setLive] = useState("Connecting…");
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let source: EventSource | undefined;
    let dropped = false;
    const load = () =>
      fetch("/module/state")
        .then((r) => r.json() as Promise<ModuleState>)
        .then(setState, (e: Error) => setError(`The module did not answer: ${e.message}`));
    const add =
      <K extends "samples" | "trace" | "sessions">(key: K, max: number) =>
      (m: MessageEvent<string>) =>
        setState((s) => (s ? { ...s, [key]: [...s[key], JSON.parse(m.data)].slice(-max) } : s));
    void load().then(() => {
      source = new EventSource("/module/stream");
      source.addEventListener("hello", () => {
        setLive(dropped ? "Live again: the stream reconnected" : "Live");
        if (dropped) void load();
      });
      source.addEventListener("sample", add("samples", 3600) as EventListener);
      source.addEventListener("trace", add("trace", 300) as EventListener);
      source.addEventListener("session", add("sessions", 200) as EventListener);
      source.onerror = () => {
        dropped = true;
        setLive("The stream dropped: reconnecting…");
      };
    });
    return () => source?.close();
  }, []);
  return { state, live, error };
}

/** The module page: its request trace, sessions, supply and energy plots, position and track, mode. */
export function ModulePage() {
  const { state, live, error } = useModule();
  if (!state)
    return html`<main>
      <${ErrorText} error=${error} />${error ? null : html`<p class="muted">Loading…</p>`}
    </main>`;
  const track = state.samples
    .filter((s) => s.lat !== null && s.lon !== null)
    .map((s) => [s.lat!, s.lon!] as [number, number]);
  const here = track.at(-1);
  const hub = state.hub;
  return html`<div class="shell">
    <header>
      <span class="brand">cardsim module</span><span class="mono">${state.device}</span
      ><span>${state.sku}</span> <span class="who live" role="status">${live}</span>
    </header>
    <main>
      <dl class="facts">
        <dt>Mode</dt>
        <dd>${String(hub["mode"] ?? "—")}</dd>
        <dt>Schedule</dt>
        <dd>
          ${hub["outbound"] !== undefined ? `outbound every ${String(hub["outbound"])} min` : "—"}${hub["inbound"] !== undefined ? `, inbound every ${String(hub["inbound"])} min` : ""}
        </dd>
        <dt>Product</dt>
        <dd class="mono">${String(hub["product"] ?? "—")}</dd>
        <dt>Position</dt>
        <dd>${here ? `${here[0].toFixed(5)}, ${here[1].toFixed(5)}` : "unknown"}</dd>
      </dl>
      <div class="plots">
        <${Plot} title="Supply voltage" unit="V" samples=${state.samples} value=${(s: Sample) => s.volts} />
        <${Plot} title="Energy used" unit="mAh" samples=${state.samples} value=${(s: Sample) => s.mah} />
      </div>
      <h2>World</h2>
      <div class="split">
        <${WorldMap}
          points=${here ? [{ lat: here[0], lon: here[1], label: "the module" }] : []}
          track=${track}
        />
        <div>
          <h2>Sessions</h2>
          <table class="grid">
            <thead>
              <tr>
                <th>Began</th>
                <th>Why</th>
                <th>Time</th>
                <th>Bytes</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              ${[...state.sessions]
                .reverse()
                .slice(0, 50)
                .map(
                  (s) =>
                    html`<tr class=${s.ok ? "" : "alert"}>
                      <td>${when(s.started)}</td>
                      <td>${s.why}</td>
                      <td>${((s.ended - s.started) / 1000).toFixed(1)} s</td>
                      <td>${s.bytes}</td>
                      <td>${s.ok ? (s.held ? "held open" : "ok") : (s.error ?? "failed")}</td>
                    </tr>`,
                )}
            </tbody>
          </table>
        </div>
      </div>
      <h2>Requests and replies</h2>
      <div class="trace" aria-label="request trace">
        ${[...state.trace].reverse().map(
          (t) =>
            html`<div>${when(t.atMs)} ${">"} ${t.request}</div>
              ${t.reply !== null ? html`<div class="reply">${when(t.atMs)} ${"<"} ${t.reply.length > 2000 ? `${t.reply.slice(0, 2000)}…` : t.reply}</div>` : null}`,
        )}
      </div>
    </main>
  </div>`;
}
