import { useState } from "preact/hooks";
import { api, projectPath } from "../api.js";
import { ErrorText, Heading, jsonText, Loading, useAction, useLoad } from "../components.js";
import { html } from "../html.js";
import type { Device } from "./devices.js";

interface Fleet {
  uid: string;
  label: string;
  smart_rule?: string;
  environment_variables: Record<string, string>;
}

function Members(props: { project: string; fleet: string }) {
  const members = useLoad(
    () => api<{ devices: Device[] }>(projectPath(props.project, "fleets", props.fleet, "devices")),
    [props.fleet],
  );
  const base = `#/p/${encodeURIComponent(props.project)}/devices/`;
  return html`<${Loading} loaded=${members}>${(r: { devices: Device[] }) =>
    r.devices.length === 0
      ? html`<span class="muted">no member</span>`
      : r.devices.map(
          (d) =>
            html`<a class="mono chip" href=${base + encodeURIComponent(d.uid)}
              >${d.serial_number || d.uid}</a
            >`,
        )}</${Loading}>`;
}

/** The project's fleets: members, smart rules, variables; a new fleet for developers. */
export function FleetsPage(props: { project: string; canEdit: boolean }) {
  const fleets = useLoad(
    () => api<{ fleets: Fleet[] }>(projectPath(props.project, "fleets")),
    [props.project],
  );
  const [label, setLabel] = useState("");
  const [rule, setRule] = useState("");
  const action = useAction();
  const [fault, setFault] = useState<string | undefined>(undefined);
  const create = async (e: Event) => {
    e.preventDefault();
    setFault(label.trim() === "" ? "Give the fleet a name" : undefined);
    if (label.trim() === "") return;
    const ok = await action.run(() =>
      api(projectPath(props.project, "fleets"), {
        method: "POST",
        body: { label, ...(rule ? { smart_rule: rule } : {}) },
      }),
    );
    if (ok) {
      setLabel("");
      setRule("");
      fleets.reload();
    }
  };
  return html`<section>
    <${Heading} title="Fleets" />
    ${
      props.canEdit &&
      html`<form class="filters" onSubmit=${create} aria-label="Create a fleet">
        <label
          >Name
          <input
            name="label"
            required
            value=${label}
            onInput=${(e: Event) => setLabel((e.target as HTMLInputElement).value)}
        /></label>
        <label
          >Smart rule (JSONata)
          <input
            name="smart_rule"
            value=${rule}
            onInput=${(e: Event) => setRule((e.target as HTMLInputElement).value)}
        /></label>
        <button type="submit" disabled=${action.busy}>Create fleet</button>
        <${ErrorText} error=${fault ?? action.error} />
      </form>`
    }
    <${Loading} loaded=${fleets}>${(r: { fleets: Fleet[] }) =>
      r.fleets.length === 0
        ? html`<p class="muted">No fleet yet.</p>`
        : html`<table class="grid">
            <thead>
              <tr>
                <th>Fleet</th>
                <th>Smart rule</th>
                <th>Variables</th>
                <th>Members</th>
              </tr>
            </thead>
            <tbody>
              ${r.fleets.map(
                (f) =>
                  html`<tr>
                    <td>
                      ${f.label}
                      <div class="mono muted">${f.uid}</div>
                    </td>
                    <td class="mono">${f.smart_rule ?? "—"}</td>
                    <td class="mono">${jsonText(f.environment_variables, 200)}</td>
                    <td><${Members} project=${props.project} fleet=${f.uid} /></td>
                  </tr>`,
              )}
            </tbody>
          </table>`}</${Loading}>
  </section>`;
}
