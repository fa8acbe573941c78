import { useState } from "preact/hooks";
import { api, projectPath, query } from "../api.js";
import {
  ago,
  bytes,
  ErrorText,
  Heading,
  jsonText,
  loadSignals,
  Loading,
  signalText,
  useAction,
  useLoad,
  when,
  type DeviceProps,
} from "../components.js";
import { html } from "../html.js";
import { EventTable, type EventDoc } from "./events.js";
import type { Device } from "./devices.js";
import { DfuPanel } from "./dfu.js";
import { EnvPanel } from "./env.js";
import { NotesPanel } from "./notes.js";

interface Session {
  session: string;
  session_began: number;
  session_ended?: number;
  why_session_opened?: string;
  why_session_closed?: string;
  period?: {
    duration?: number;
    bytes_sent?: number;
    bytes_rcvd?: number;
    notes_sent?: number;
    notes_rcvd?: number;
  };
  penalty_secs?: number;
  rat?: string;
  bars?: number;
  rssi?: number;
  [key: string]: unknown;
}

/** The device's sessions as bars on a time line: trigger, duration, bytes and notes each way, outcome. */
function SessionsPanel(props: DeviceProps) {
  const loaded = useLoad(
    () =>
      api<{ sessions: Session[] }>(
        projectPath(props.project, "devices", props.device, "sessions") + query({ pageSize: 50 }),
      ),
    [props.device],
  );
  return html`<${Loading} loaded=${loaded}>${({ sessions }: { sessions: Session[] }) => {
    if (sessions.length === 0) return html`<p class="muted">No session yet.</p>`;
    const start = Math.min(...sessions.map((s) => s.session_began));
    const end = Math.max(...sessions.map((s) => s.session_ended ?? s.session_began + 1));
    const span = Math.max(1, end - start);
    return html`<div class="timeline" aria-label="sessions timeline">
      ${sessions.map((s) => {
        const left = ((s.session_began - start) / span) * 100;
        const width = Math.max(0.5, (((s.session_ended ?? s.session_began) - s.session_began) / span) * 100);
        const p = s.period ?? {};
        const failed = /error|fail|refus/i.test(String(s.why_session_closed ?? ""));
        return html`<div class="session-row">
          <span class="when">${when(s.session_began)}</span>
          <span class="lane"
            ><span
              class=${`bar ${failed ? "failed" : ""}`}
              style=${{ left: `${left}%`, width: `${width}%` }}
            ></span
          ></span>
          <span>${s.why_session_opened ?? "—"}</span>
          <span>${p.duration ?? 0} s</span>
          <span>↑ ${bytes(p.bytes_sent)} / ${p.notes_sent ?? 0} notes</span>
          <span>↓ ${bytes(p.bytes_rcvd)} / ${p.notes_rcvd ?? 0} notes</span>
          <span class=${failed ? "error" : ""}
            >${s.why_session_closed ?? (s.session_ended ? "ended" : "open")}</span
          >
          <span>${signalText(s)}</span>
          ${s.penalty_secs ? html`<span class="error">penalty box ${s.penalty_secs} s</span>` : null}
        </div>`;
      })}
    </div>`;
  }}</${Loading}>`;
}

function DeviceEvents(props: DeviceProps) {
  const loaded = useLoad(
    () =>
      api<{ events: EventDoc[] }>(
        projectPath(props.project, "events") +
          query({ deviceUID: props.device, pageSize: 50, sortBy: "modified", sortOrder: "desc" }),
      ),
    [props.device],
  );
  return html`<${Loading} loaded=${loaded}>${({ events }: { events: EventDoc[] }) => html`<${EventTable} events=${events} project=${props.project} />`}</${Loading}>`;
}

function HealthPanel(props: DeviceProps) {
  const loaded = useLoad(
    () =>
      api<{ health_log: { when: string; alert: boolean; text: string; type?: string }[] }>(
        projectPath(props.project, "devices", props.device, "health-log"),
      ),
    [props.device],
  );
  return html`<${Loading} loaded=${loaded}>${(data: {
    health_log: { when: string; alert: boolean; text: string; type?: string }[];
  }) =>
    data.health_log.length === 0
      ? html`<p class="muted">Nothing in the health log.</p>`
      : html`<table class="grid">
          <thead>
            <tr>
              <th>When</th>
              <th>Type</th>
              <th>Text</th>
            </tr>
          </thead>
          <tbody>
            ${data.health_log.map(
              (h) =>
                html`<tr class=${h.alert ? "alert" : ""}>
                  <td>${when(h.when)}</td>
                  <td>${h.type ?? ""}</td>
                  <td>${h.text}</td>
                </tr>`,
            )}
          </tbody>
        </table>`}</${Loading}>`;
}

const TABS: [string, string][] = [
  ["sessions", "Sessions"],
  ["events", "Events"],
  ["notes", "Notefiles"],
  ["env", "Environment"],
  ["dfu", "Firmware update"],
  ["health", "Health log"],
];

/** One device: what it is, and its sessions, events, notes, variables, updates and health log. */
export function DevicePage(props: DeviceProps) {
  const [tab, setTab] = useState("sessions");
  const loaded = useLoad(
    () => api<Device>(projectPath(props.project, "devices", props.device)),
    [props.device],
  );
  const signal = useAction();
  const radio = useLoad(() => loadSignals(props.project, [props.device]), [props.device]);
  return html`<section>
    <${Heading} title=${props.device}>
      ${props.canEdit && html`<button type="button" disabled=${signal.busy} onClick=${() => signal.run(() => api(projectPath(props.project, "devices", props.device, "signal"), { method: "POST", body: { body: { from: "console" } } }))}>Send a signal</button>`}
    </${Heading}>
    <${ErrorText} error=${signal.error} />
    <${Loading} loaded=${loaded}>${(d: Device) =>
      html`<dl class="facts">
        <dt>Serial number</dt>
        <dd>${d.serial_number ?? "—"}</dd>
        <dt>Last seen</dt>
        <dd>${ago(d.last_activity)}</dd>
        <dt>Voltage</dt>
        <dd>${d.voltage !== undefined ? `${d.voltage.toFixed(2)} V` : "—"}</dd>
        <dt>Signal</dt>
        <dd class="signal">${radio.data ? signalText(radio.data[props.device]) : "…"}</dd>
        <dt>Temperature</dt>
        <dd>${d.temperature !== undefined ? `${d.temperature} °C` : "—"}</dd>
        <dt>SKU</dt>
        <dd>${d.sku ?? "—"}</dd>
        <dt>Fleets</dt>
        <dd class="mono">${d.fleet_uids.join(", ") || "—"}</dd>
        <dt>Location</dt>
        <dd>
          ${d.best_location ? `${d.best_location.name ?? ""} ${d.best_location.latitude}, ${d.best_location.longitude}` : "—"}
        </dd>
        <dt>Host firmware</dt>
        <dd class="mono">${d.firmware_host ? jsonText(d.firmware_host, 120) : "—"}</dd>
      </dl>`}</${Loading}>
    <div class="tabs" role="tablist">${TABS.map(([key, label]) => html`<button type="button" role="tab" aria-selected=${tab === key} class=${tab === key ? "current" : ""} onClick=${() => setTab(key)}>${label}</button>`)}</div>
    ${tab === "sessions" && html`<${SessionsPanel} ...${props} />`}
    ${tab === "events" && html`<${DeviceEvents} ...${props} />`}
    ${tab === "notes" && html`<${NotesPanel} ...${props} />`}
    ${tab === "env" && html`<${EnvPanel} ...${props} />`}
    ${tab === "dfu" && html`<${DfuPanel} ...${props} />`}
    ${tab === "health" && html`<${HealthPanel} ...${props} />`}
  </section>`;
}
