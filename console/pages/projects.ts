import { html } from "../html.js";

export interface Project {
  uid: string;
  label: string;
  role: "viewer" | "developer" | "owner" | null;
  created: string;
}

/** The projects the signed-in user is a member of, with the role in each. */
export function ProjectsPage(props: { projects: Project[] }) {
  return html`<section>
    <h1>Projects</h1>
    ${
      props.projects.length === 0
        ? html`<p class="muted">You are a member of no project of this hub.</p>`
        : html`<table class="grid">
            <thead>
              <tr>
                <th>Project</th>
                <th>ProjectUID</th>
                <th>Your role</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${props.projects.map(
                (p) =>
                  html`<tr>
                    <td><a href=${`#/p/${encodeURIComponent(p.uid)}/devices`}>${p.label}</a></td>
                    <td class="mono">${p.uid}</td>
                    <td>${p.role}</td>
                    <td>${p.created}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
