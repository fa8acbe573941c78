import { useState } from "preact/hooks";
import { api, projectPath, query } from "../api.js";
import { ErrorText, Heading, Loading, useAction, useLoad, when } from "../components.js";
import { html } from "../html.js";
import { readJsonObject } from "./notes.js";

interface RouteSummary {
  uid: string;
  label: string;
  type: string;
  modified: string;
  disabled: boolean;
  [key: string]: unknown;
}

interface RouteLog {
  date: string;
  duration: number;
  event_uid: string;
  attn: boolean;
  status: string;
  text?: string;
  url: string;
  source: string;
}

const EXAMPLE = JSON.stringify(
  {
    label: "my endpoint",
    type: "http",
    http: { url: "http://127.0.0.1:8080/in", filter: { type: "include", files: ["data.qo"] } },
  },
  null,
  2,
);

/** A route's definition as JSON (the API's own shape), checked before it is sent. */
function RouteEditor(props: { project: string; route?: RouteSummary; done: () => void }) {
  const initial = props.route
    ? JSON.stringify(
        Object.fromEntries(Object.entries(props.route).filter(([k]) => !["uid", "modified"].includes(k))),
        null,
        2,
      )
    : EXAMPLE;
  const [text, setText] = useState(initial);
  const [fault, setFault] = useState<string | undefined>(undefined);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const read = readJsonObject(text);
    if ("fault" in read) return setFault(read.fault.replace("body", "route"));
    setFault(undefined);
    const path = props.route
      ? projectPath(props.project, "routes", props.route.uid)
      : projectPath(props.project, "routes");
    if (await action.run(() => api(path, { method: props.route ? "PUT" : "POST", body: read.value })))
      props.done();
  };
  return html`<form
    class="route-editor"
    onSubmit=${submit}
    aria-label=${props.route ? "Edit the route" : "Create a route"}
  >
    <label
      >Route (JSON, as the API takes it)
      <textarea
        name="route"
        rows="10"
        value=${text}
        onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
      ></textarea>
    </label>
    <${ErrorText} error=${fault ?? action.error} />
    <button type="submit" disabled=${action.busy}>${props.route ? "Save" : "Create"}</button>
    <button type="button" onClick=${props.done}>Cancel</button>
  </form>`;
}

/** What a route test answers: the attempt's log (status, the endpoint's answer, its time). */
interface TestResult {
  status: string;
  attn: boolean;
  text?: string;
  duration: number;
  url: string;
}

/** What is wrong with a route test's sample before it is sent (the hub checks it again). */
export function sampleFault(device: string, file: string, body: string): string | undefined {
  if (!/^dev:[0-9A-Za-z]{1,64}$/.test(device.trim()))
    return "The device must be a DeviceUID: dev: then its digits or hex (dev:000000000000000)";
  // eslint-disable-next-line no-control-regex
  if (!/^[^\u0000-\u001f\u007f,]+\.(qo|qos|qi|qis|db|dbs|dbx)$/.test(file.trim()))
    return "The notefile must be a name ending .qo, .qi or .db (data.qo)";
  const read = readJsonObject(body);
  return "fault" in read ? read.fault : undefined;
}

/**
 * Sends a sample event through this route only: the hub posts it to the route's endpoint and
 * logs the attempt (source `test`) without storing an event, so no other route sees it.
 */
function TestRoute(props: { project: string; route: RouteSummary }) {
  const [device, setDevice] = useState("dev:000000000000000");
  const [file, setFile] = useState("data.qo");
  const [body, setBody] = useState('{"test": true}');
  const [fault, setFault] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<TestResult | undefined>(undefined);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const wrong = sampleFault(device, file, body);
    setFault(wrong);
    if (wrong) return;
    const read = readJsonObject(body);
    const path = `/console/api/projects/${encodeURIComponent(props.project)}/routes/${encodeURIComponent(props.route.uid)}/test`;
    setResult(undefined);
    await action.run(async () => {
      const sample = { device: device.trim(), file: file.trim(), body: "value" in read ? read.value : {} };
      setResult(await api<TestResult>(path, { method: "POST", body: sample }));
    });
  };
  const field = (name: string, label: string, value: string, set: (v: string) => void) =>
    html`<label
      >${label}
      <input name=${name} value=${value} onInput=${(e: Event) => set((e.target as HTMLInputElement).value)}
    /></label>`;
  return html`<form class="filters route-test" onSubmit=${submit} aria-label=${`Test ${props.route.label}`}>
    ${field("device", "Device", device, setDevice)} ${field("file", "Notefile", file, setFile)}
    ${field("body", "Body", body, setBody)}
    <button type="submit" disabled=${action.busy}>Send the sample</button>
    <${ErrorText} error=${fault ?? action.error} />
    ${
      result &&
      html`<p class=${`test-result ${result.attn ? "error" : ""}`} role="status">
        ${result.status} in ${result.duration} ms from ${result.url}${result.text ? `: ${result.text}` : ""}
      </p>`
    }
  </form>`;
}

function Logs(props: { project: string; route: string }) {
  const logs = useLoad(
    () =>
      api<RouteLog[]>(
        projectPath(props.project, "routes", props.route, "route-logs") +
          query({ pageSize: 50, sortOrder: "desc" }),
      ),
    [props.route],
  );
  return html`<${Loading} loaded=${logs}>${(list: RouteLog[]) =>
    list.length === 0
      ? html`<p class="muted">No delivery yet.</p>`
      : html`<table class="grid">
          <thead>
            <tr>
              <th>When</th>
              <th>Event</th>
              <th>Status</th>
              <th>Time</th>
              <th>Answer</th>
            </tr>
          </thead>
          <tbody>
            ${list.map(
              (l) =>
                html`<tr class=${l.attn ? "alert" : ""}>
                  <td>${when(l.date)}</td>
                  <td class="mono">${l.event_uid}</td>
                  <td>${l.status}</td>
                  <td>${l.duration} ms</td>
                  <td class="mono body">${l.text ?? "(only developers see the answer)"}</td>
                </tr>`,
            )}
          </tbody>
        </table>`}</${Loading}>`;
}

/** The project's routes: create, edit, delete, test with a sample event, their logs. */
export function RoutesPage(props: { project: string; canEdit: boolean }) {
  const routes = useLoad(() => api<RouteSummary[]>(projectPath(props.project, "routes")), [props.project]);
  const [editing, setEditing] = useState<RouteSummary | "new" | undefined>(undefined);
  const [logs, setLogs] = useState<string | undefined>(undefined);
  const [testing, setTesting] = useState<string | undefined>(undefined);
  const action = useAction();
  const edit = (uid: string) =>
    action.run(async () => setEditing(await api<RouteSummary>(projectPath(props.project, "routes", uid))));
  const remove = (uid: string) =>
    action
      .run(() => api(projectPath(props.project, "routes", uid), { method: "DELETE" }))
      .then(routes.reload);
  return html`<section>
    <${Heading} title="Routes">${
      props.canEdit && html`<button type="button" onClick=${() => setEditing("new")}>New route</button>`
    }</${Heading}>
    ${
      editing &&
      html`<${RouteEditor}
        project=${props.project}
        route=${editing === "new" ? undefined : editing}
        done=${() => {
          setEditing(undefined);
          routes.reload();
        }}
      />`
    }
    <${ErrorText} error=${action.error} />
    <${Loading} loaded=${routes}>${(list: RouteSummary[]) =>
      list.length === 0
        ? html`<p class="muted">No route yet.</p>`
        : html`<table class="grid">
            <thead>
              <tr>
                <th>Route</th>
                <th>Type</th>
                <th>Modified</th>
                <th>State</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${list.map(
                (r) =>
                  html`<tr>
                      <td>${r.label} <span class="mono muted">${r.uid}</span></td>
                      <td>${r.type}</td>
                      <td>${when(r.modified)}</td>
                      <td>${r.disabled ? "disabled" : "enabled"}</td>
                      <td>
                        <button type="button" onClick=${() => setLogs(logs === r.uid ? undefined : r.uid)}>
                          Logs
                        </button>
                        ${props.canEdit && html`<button type="button" onClick=${() => edit(r.uid)}>Edit</button><button type="button" onClick=${() => remove(r.uid)}>Delete</button><button type="button" onClick=${() => setTesting(testing === r.uid ? undefined : r.uid)}>Test with a sample event</button>`}
                      </td>
                    </tr>
                    ${
                      testing === r.uid &&
                      html`<tr>
                        <td colspan="5"><${TestRoute} project=${props.project} route=${r} /></td>
                      </tr>`
                    }`,
              )}
            </tbody>
          </table>`}</${Loading}>
    ${
      logs &&
      html`<h2>Deliveries of ${logs}</h2>
        <${Logs} project=${props.project} route=${logs} />`
    }
  </section>`;
}
