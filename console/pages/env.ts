import { useState } from "preact/hooks";
import { api, projectPath } from "../api.js";
import { ErrorText, Loading, useAction, useLoad, type DeviceProps } from "../components.js";
import { html } from "../html.js";

type Vars = Record<string, string>;

interface Resolved {
  key: string;
  value: string;
  source: string;
}

/** Where each of the device's values comes from: the device, a fleet, the project, or its default. */
async function resolved(project: string, device: string): Promise<{ own: Vars; rows: Resolved[] }> {
  const mine = await api<{
    environment_variables: Vars;
    environment_variables_env_default: Vars;
    environment_variables_effective: Vars;
  }>(projectPath(project, "devices", device, "environment_variables"));
  const fleets = await api<{ fleets: { uid: string; label: string; environment_variables?: Vars }[] }>(
    projectPath(project, "devices", device, "fleets"),
  );
  const projectVars = await api<{ environment_variables: Vars }>(
    projectPath(project, "environment_variables"),
  );
  const fleetVars = fleets.fleets.map((f) => ({ f, vars: f.environment_variables ?? {} }));
  const rows = Object.entries(mine.environment_variables_effective).map(([key, value]) => {
    let source = "default";
    if (key in mine.environment_variables) source = "device";
    else if (fleetVars.some(({ vars }) => key in vars))
      source = `fleet ${fleetVars.find(({ vars }) => key in vars)!.f.label}`;
    else if (key in projectVars.environment_variables) source = "project";
    return { key, value, source };
  });
  return { own: mine.environment_variables, rows };
}

/**
 * Issues the device a new PIN (our POST …/devices/{D}/pin) and shows it this once: the hub keeps
 * only its hash. An app sends it as X-Auth-Token to …/environment_variables_with_pin.
 */
function DevicePin(props: DeviceProps) {
  const [pin, setPin] = useState<string | undefined>(undefined);
  const action = useAction();
  const issue = () =>
    action.run(async () => {
      const path = projectPath(props.project, "devices", props.device, "pin");
      setPin((await api<{ pin: string }>(path, { method: "POST" })).pin);
    });
  return html`<div class="device-pin">
    <button type="button" onClick=${issue} disabled=${action.busy}>Issue a new PIN</button>
    ${
      pin
        ? html`<p>
            PIN <span class="mono" aria-label="device PIN">${pin}</span>: shown this once, it replaces any
            earlier PIN. An app sends it as <span class="mono">X-Auth-Token</span> to
            <span class="mono">/v1/products/…/devices/…/environment_variables_with_pin</span>.
          </p>`
        : null
    }
    <${ErrorText} error=${action.error} />
  </div>`;
}

/** The device's environment variables, their sources, and an editor of the device's own. */
export function EnvPanel(props: DeviceProps) {
  const loaded = useLoad(() => resolved(props.project, props.device), [props.device]);
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [fault, setFault] = useState<string | undefined>(undefined);
  const action = useAction();
  const vars = projectPath(props.project, "devices", props.device, "environment_variables");
  const save = async (e: Event) => {
    e.preventDefault();
    if (key.trim() === "") return setFault("Give the variable a name");
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(key))
      return setFault("A variable's name holds printable characters only");
    setFault(undefined);
    if (
      await action.run(() =>
        api(vars, { method: "PUT", body: { environment_variables: { [key.trim()]: value } } }),
      )
    ) {
      setKey("");
      setValue("");
      loaded.reload();
    }
  };
  const remove = (name: string) =>
    action.run(() => api(`${vars}/${encodeURIComponent(name)}`, { method: "DELETE" })).then(loaded.reload);
  return html`<div>
    <${Loading} loaded=${loaded}>${(data: { own: Vars; rows: Resolved[] }) =>
      html`<table class="grid env">
          <thead>
            <tr>
              <th>Variable</th>
              <th>Value</th>
              <th>From</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${data.rows.map(
              (r) =>
                html`<tr>
                  <td class="mono">${r.key}</td>
                  <td class="mono">${r.value}</td>
                  <td>${r.source}</td>
                  <td>
                    ${
                      props.canEdit
                        ? html`<button
                              type="button"
                              onClick=${() => {
                                setKey(r.key);
                                setValue(r.value);
                              }}
                            >
                              Edit
                            </button>
                            ${r.source === "device" ? html`<button type="button" onClick=${() => remove(r.key)}>Delete</button>` : null}`
                        : null
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${data.rows.length === 0 ? html`<p class="muted">No variable reaches this device.</p>` : null}`}</${Loading}>
    ${
      props.canEdit &&
      html`<form class="env-form" onSubmit=${save} aria-label="Set a device variable">
        <label
          >Name
          <input
            name="key"
            value=${key}
            onInput=${(e: Event) => setKey((e.target as HTMLInputElement).value)}
        /></label>
        <label
          >Value
          <input
            name="value"
            value=${value}
            onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)}
        /></label>
        <button type="submit" disabled=${action.busy}>Set on the device</button>
        <${ErrorText} error=${fault ?? action.error} />
      </form>`
    }
    ${props.canEdit && html`<${DevicePin} ...${props} />`}
  </div>`;
}
