import { useState } from "preact/hooks";
import { api, projectPath, query } from "../api.js";
import {
  ago,
  Heading,
  loadSignals,
  Loading,
  Pager,
  signalText,
  useLoad,
  when,
  type Signal,
} from "../components.js";
import { html } from "../html.js";

export interface Device {
  uid: string;
  serial_number?: string;
  last_activity?: string;
  voltage?: number;
  temperature?: number;
  sku?: string;
  fleet_uids: string[];
  best_location?: { latitude: number; longitude: number; name?: string; country?: string };
  firmware_host?: string;
  disabled?: boolean;
}

const PAGE_SIZE = 50;

/**
 * Positions on an equirectangular world (longitude -180..180 across, latitude 90..-90 down) with
 * a grid every 30°: no tiles, no coastlines, nothing fetched, so it works offline.
 */
export function WorldMap(props: {
  points: { lat: number; lon: number; label: string; href?: string }[];
  track?: [number, number][];
}) {
  const x = (lon: number) => lon + 180;
  const y = (lat: number) => 90 - lat;
  const grid = [];
  for (let lon = -150; lon <= 150; lon += 30)
    grid.push(html`<line x1=${x(lon)} y1="0" x2=${x(lon)} y2="180" />`);
  for (let lat = -60; lat <= 60; lat += 30)
    grid.push(html`<line x1="0" y1=${y(lat)} x2="360" y2=${y(lat)} />`);
  const track = props.track ?? [];
  return html`<svg class="map" viewBox="0 0 360 180" role="img" aria-label="positions">
    <rect width="360" height="180" class="sea" />
    <g class="grid">${grid}</g>
    <line class="equator" x1="0" y1="90" x2="360" y2="90" />
    ${track.length > 1 ? html`<polyline class="track" points=${track.map(([lat, lon]) => `${x(lon)},${y(lat)}`).join(" ")} />` : null}
    ${props.points.map(
      (p) =>
        html`<a href=${p.href ?? "#"}
          ><circle cx=${x(p.lon)} cy=${y(p.lat)} r="2"><title>${p.label}</title></circle></a
        >`,
    )}
  </svg>`;
}

/** The project's devices: a table with filters and pages, and a map of where they are. */
export function DevicesPage(props: { project: string; canEdit: boolean }) {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState({ sku: "", fleetUID: "", location: "", serialNumber: "" });
  const [draft, setDraft] = useState(filters);
  const loaded = useLoad(
    () =>
      api<{ devices: Device[]; has_more: boolean }>(
        projectPath(props.project, "devices") + query({ pageSize: PAGE_SIZE, pageNum: page, ...filters }),
      ),
    [props.project, page, filters],
  );
  // The signal of the devices shown, from their newest session records, once the table is there.
  const shown = (loaded.data?.devices.map((d) => d.uid) ?? []).join(",");
  const signalsLoaded = useLoad<{ of: string; signals: Record<string, Signal> }>(
    async () => ({ of: shown, signals: await loadSignals(props.project, shown.split(",").filter(Boolean)) }),
    [props.project, shown],
  );
  // Until the signals of the devices shown are in, their cells say so ("…"), never "—".
  const signals = signalsLoaded.data?.of === shown ? signalsLoaded.data.signals : undefined;
  const field = (name: keyof typeof draft, label: string) =>
    html`<label
      >${label}
      <input
        name=${name}
        value=${draft[name]}
        onInput=${(e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
    /></label>`;
  const base = `#/p/${encodeURIComponent(props.project)}/devices/`;
  return html`<section>
    <${Heading} title="Devices" />
    <form class="filters" onSubmit=${(e: Event) => {
      e.preventDefault();
      setPage(1);
      setFilters(draft);
    }}>
      ${field("sku", "SKU")} ${field("fleetUID", "Fleet UID")} ${field("location", "Location")} ${field("serialNumber", "Serial number")}
      <button type="submit">Filter</button>
    </form>
    <${Loading} loaded=${loaded}>${(data: { devices: Device[]; has_more: boolean }) =>
      html` <div class="split">
          <table class="grid devices">
            <thead>
              <tr>
                <th>Device</th>
                <th>Last seen</th>
                <th>Voltage</th>
                <th>Signal</th>
                <th>SKU</th>
                <th>Fleets</th>
                <th>Location</th>
              </tr>
            </thead>
            <tbody>
              ${data.devices.map(
                (d) =>
                  html`<tr>
                    <td>
                      <a href=${base + encodeURIComponent(d.uid)}>${d.serial_number || d.uid}</a
                      >${d.serial_number ? html`<div class="mono muted">${d.uid}</div>` : null}
                    </td>
                    <td title=${d.last_activity ?? ""}>${ago(d.last_activity)}</td>
                    <td>${d.voltage !== undefined ? `${d.voltage.toFixed(2)} V` : "—"}</td>
                    <td
                      class="signal"
                      title=${signals?.[d.uid]?.when ? `session of ${when(signals[d.uid]!.when)}` : ""}
                    >
                      ${signals ? signalText(signals[d.uid]) : "…"}
                    </td>
                    <td>${d.sku ?? "—"}</td>
                    <td class="mono">${d.fleet_uids.join(", ") || "—"}</td>
                    <td>
                      ${d.best_location ? d.best_location.name || `${d.best_location.latitude.toFixed(4)}, ${d.best_location.longitude.toFixed(4)}` : "—"}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          <${WorldMap}
            points=${data.devices
              .filter((d) => d.best_location)
              .map((d) => ({
                lat: d.best_location!.latitude,
                lon: d.best_location!.longitude,
                label: d.serial_number || d.uid,
                href: base + encodeURIComponent(d.uid),
              }))}
          />
        </div>
        ${data.devices.length === 0 ? html`<p class="muted">No device here yet: start a module (cardsim up) and let it sync.</p>` : null}
        <${Pager} page=${page} hasMore=${data.has_more} onPage=${setPage} />`}
    </${Loading}>
  </section>`;
}
