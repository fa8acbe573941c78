import { api, projectPath } from "../api.js";
import { bytes, Heading, Loading, useLoad, when } from "../components.js";
import { html } from "../html.js";
import { UploadImage, type FirmwareImage } from "./dfu.js";

/** The project's firmware images, and an upload for developers. */
export function FirmwarePage(props: { project: string; canEdit: boolean }) {
  const images = useLoad(() => api<FirmwareImage[]>(projectPath(props.project, "firmware")), [props.project]);
  return html`<section>
    <${Heading} title="Firmware" />
    ${props.canEdit && html`<${UploadImage} project=${props.project} onUploaded=${images.reload} />`}
    <${Loading} loaded=${images}>${(list: FirmwareImage[]) =>
      list.length === 0
        ? html`<p class="muted">No image uploaded.</p>`
        : html`<table class="grid">
            <thead>
              <tr>
                <th>File</th>
                <th>Type</th>
                <th>Version</th>
                <th>Size</th>
                <th>MD5</th>
                <th>Uploaded</th>
                <th>Description</th>
              </tr>
            </thead>
            <tbody>
              ${list.map(
                (i) =>
                  html`<tr>
                    <td class="mono">${i.filename}</td>
                    <td>${i.type}</td>
                    <td>${i.version ?? "—"}</td>
                    <td>${bytes(i.length)}</td>
                    <td class="mono">${i.md5}</td>
                    <td>${when(i.created)}</td>
                    <td>${i.description ?? ""}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`}</${Loading}>
  </section>`;
}
