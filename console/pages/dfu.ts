import { useState } from "preact/hooks";
import { api, projectPath, query } from "../api.js";
import { bytes, ErrorText, Loading, useAction, useLoad, when, type DeviceProps } from "../components.js";
import { html } from "../html.js";
import { useLive } from "./events.js";

export interface FirmwareImage {
  filename: string;
  type: string;
  version?: string;
  length: number;
  md5: string;
  created: string;
  description?: string;
}

interface DfuStatus {
  current?: Record<string, unknown>;
  dfu_in_progress: boolean;
  status?: {
    initiated: string;
    updates: { datetime: string; phase: string; status: string; description?: string }[];
  };
}

/** Uploads a host firmware image (the file's bytes as the body); says what the hub answered. */
export function UploadImage(props: { project: string; onUploaded: (image: FirmwareImage) => void }) {
  const [file, setFile] = useState<File | undefined>(undefined);
  const [version, setVersion] = useState("");
  const action = useAction();
  const [fault, setFault] = useState<string | undefined>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return setFault("Choose an image file first");
    if (file.size === 0) return setFault("The file is empty: choose the image to upload");
    setFault(undefined);
    let image: FirmwareImage | undefined;
    const ok = await action.run(async () => {
      image = await api<FirmwareImage>(
        projectPath(props.project, "firmware", "host", file.name) + query({ version }),
        {
          method: "PUT",
          bytes: await file.arrayBuffer(),
        },
      );
    });
    if (ok && image) props.onUploaded(image);
  };
  return html`<form class="upload" onSubmit=${submit} aria-label="Upload a host firmware image">
    <label
      >Image
      <input
        name="image"
        type="file"
        onChange=${(e: Event) => setFile((e.target as HTMLInputElement).files?.[0])}
    /></label>
    <label
      >Version
      <input
        name="version"
        value=${version}
        onInput=${(e: Event) => setVersion((e.target as HTMLInputElement).value)}
    /></label>
    <button type="submit" disabled=${action.busy}>Upload</button>
    <${ErrorText} error=${fault ?? action.error} />
  </form>`;
}

/** The device's host firmware update: its state, progress live, an image to request. */
export function DfuPanel(props: DeviceProps) {
  const status = useLoad(
    () => api<DfuStatus>(projectPath(props.project, "devices", props.device, "dfu", "host", "status")),
    [props.device],
  );
  const images = useLoad(
    () => api<FirmwareImage[]>(projectPath(props.project, "firmware") + query({ firmwareType: "host" })),
    [props.project],
  );
  const [chosen, setChosen] = useState("");
  const action = useAction();
  const live = useLive(
    { project: props.project, device: props.device, kinds: "dfu" },
    () => status.reload(),
    [props.device],
  );
  const request = (e: Event) => {
    e.preventDefault();
    const filename = chosen || images.data?.[0]?.filename;
    if (!filename) return;
    void action
      .run(() =>
        api(projectPath(props.project, "dfu", "host", "update") + query({ deviceUID: props.device }), {
          method: "POST",
          body: { filename },
        }),
      )
      .then(status.reload);
  };
  return html`<div class="dfu">
    <p class="live" role="status">${live}</p>
    <${Loading} loaded=${status}>${(s: DfuStatus) =>
      html`<p>${s.dfu_in_progress ? "An update is in progress." : "No update in progress."}</p>
        ${
          s.status &&
          html`<ol class="dfu-steps">
            ${s.status.updates.map((u) => html`<li class=${u.status === "error" ? "error" : ""}>${when(u.datetime)} <b>${u.phase}</b> ${u.description ?? ""}</li>`)}
          </ol>`
        }`}</${Loading}>
    ${
      props.canEdit &&
      html`<${UploadImage} project=${props.project} onUploaded=${(image: FirmwareImage) => {
        setChosen(image.filename);
        images.reload();
      }} />
      <${Loading} loaded=${images}>${(list: FirmwareImage[]) =>
        list.length === 0
          ? html`<p class="muted">No host image uploaded yet.</p>`
          : html`<form onSubmit=${request} aria-label="Request an update">
              <label
                >Image
                <select
                  name="filename"
                  value=${chosen || list[0]!.filename}
                  onChange=${(e: Event) => setChosen((e.target as HTMLSelectElement).value)}
                >
                  ${list.map((i) => html`<option value=${i.filename}>${i.filename} ${i.version ?? ""} (${bytes(i.length)})</option>`)}
                </select></label
              >
              <button type="submit" disabled=${action.busy}>Request the update</button>
            </form>`}</${Loading}>
      <${ErrorText} error=${action.error} />`
    }
  </div>`;
}
