import { useState } from "preact/hooks";
import { api, projectPath } from "../api.js";
import {
  ErrorText,
  jsonText,
  Loading,
  payloadText,
  useAction,
  useLoad,
  when,
  type DeviceProps,
} from "../components.js";
import { html } from "../html.js";

interface ListedNote {
  id: string;
  body: unknown;
  time?: number;
  payload?: string;
  pending?: boolean;
}

/** A JSON object typed by a person, checked before it is sent: the object, or what is wrong. */
export function readJsonObject(text: string): { value: Record<string, unknown> } | { fault: string } {
  if (text.trim() === "") return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { fault: 'The body must be a JSON object, like {"temp": 21.5}' };
    return { value: value as Record<string, unknown> };
  } catch (e) {
    return { fault: `The body is not JSON: ${(e as Error).message}` };
  }
}

/** A form for a note's body: checked before sending; what was typed stays when the hub refuses. */
function NoteForm(props: {
  label: string;
  initial: string;
  withId: boolean;
  send: (id: string, body: Record<string, unknown>) => Promise<unknown>;
  done: () => void;
}) {
  const [id, setId] = useState("");
  const [text, setText] = useState(props.initial);
  const [fault, setFault] = useState<string | undefined>(undefined);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const read = readJsonObject(text);
    if ("fault" in read) return setFault(read.fault);
    if (props.withId && id.trim() === "") return setFault("Give the note an ID");
    setFault(undefined);
    if (await action.run(() => props.send(id.trim(), read.value))) props.done();
  };
  return html`<form class="note-form" onSubmit=${submit}>
    ${props.withId && html`<label>Note ID <input name="noteID" value=${id} onInput=${(e: Event) => setId((e.target as HTMLInputElement).value)} /></label>`}
    <label
      >Body (JSON)
      <textarea
        name="body"
        rows="3"
        value=${text}
        onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
      ></textarea>
    </label>
    <${ErrorText} error=${fault ?? action.error} />
    <button type="submit" disabled=${action.busy}>${props.label}</button>
  </form>`;
}

function NoteRow(props: DeviceProps & { file: string; note: ListedNote; reload: () => void }) {
  const [editing, setEditing] = useState(false);
  const { note, file } = props;
  const isDb = file.endsWith(".db") || file.endsWith(".dbs");
  return html`<tr>
    <td class="mono">${note.id}</td>
    <td>${when(note.time)}</td>
    <td class="mono body">
      ${
        editing
          ? html`<${NoteForm}
              label="Save"
              initial=${JSON.stringify(note.body, null, 1)}
              withId=${false}
              done=${() => {
                setEditing(false);
                props.reload();
              }}
              send=${(_: string, body: Record<string, unknown>) => api(projectPath(props.project, "devices", props.device, "notes", file, note.id), { method: "PUT", body: { body } })}
            />`
          : jsonText(note.body)
      }
    </td>
    <td class="mono">${payloadText(note.payload)}</td>
    <td>${note.pending ? "waiting for the device" : ""}</td>
    <td>
      ${props.canEdit && isDb && !editing ? html`<button type="button" onClick=${() => setEditing(true)}>Edit</button>` : null}
    </td>
  </tr>`;
}

/** The device's notefiles and notes as the hub holds them; add to a .qi, edit or add a .db note. */
export function NotesPanel(props: DeviceProps) {
  const loaded = useLoad(
    () =>
      api<{ id: string; notes: ListedNote[] }[]>(
        projectPath(props.project, "devices", props.device, "files"),
      ),
    [props.device],
  );
  const [newFile, setNewFile] = useState("data.qi");
  const notesOf = (file: string) => projectPath(props.project, "devices", props.device, "notes", file);
  return html`<div>
    ${
      props.canEdit &&
      html`<fieldset class="add-note">
        <legend>Add a note for the device</legend>
        <label
          >Notefile
          <input
            name="notefile"
            value=${newFile}
            onInput=${(e: Event) => setNewFile((e.target as HTMLInputElement).value)}
        /></label>
        <${NoteForm}
          label="Add note"
          initial=""
          withId=${/\.dbs?$/.test(newFile)}
          done=${loaded.reload}
          send=${(id: string, body: Record<string, unknown>) => {
            if (!/\.(qi|qis|db|dbs)$/.test(newFile))
              return Promise.reject(
                new Error("Notes for the device go to a .qi or .db notefile (name.qi, name.db)"),
              );
            return api(id ? `${notesOf(newFile)}/${encodeURIComponent(id)}` : notesOf(newFile), {
              method: "POST",
              body: { body },
            });
          }}
        />
      </fieldset>`
    }
    <${Loading} loaded=${loaded}>${(files: { id: string; notes: ListedNote[] }[]) =>
      files.length === 0
        ? html`<p class="muted">No notefile on the hub for this device.</p>`
        : files.map(
            (f) =>
              html`<h3 class="mono">${f.id}</h3>
                <table class="grid">
                  <thead>
                    <tr>
                      <th>Note</th>
                      <th>Time</th>
                      <th>Body</th>
                      <th>Payload</th>
                      <th></th>
                      <th></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${f.notes.map((n) => html`<${NoteRow} ...${props} file=${f.id} note=${n} reload=${loaded.reload} />`)}
                  </tbody>
                </table>`,
          )}
    </${Loading}>
  </div>`;
}
