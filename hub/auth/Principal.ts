import type { ProjectRole } from "../store/records.js";

/** Who a request acts for, once its token is verified. */
export type Principal =
  | {
      kind: "user";
      userUid: string;
      username: string;
      staff: boolean;
      tokenUid: string;
      /** How the token was obtained: a personal access token or a login session. */
      via: "pat" | "session";
    }
  | {
      kind: "oauth";
      clientId: string;
      /** An OAuth client acts in exactly one project, with one role. */
      projectUid: string;
      role: ProjectRole;
      tokenUid: string;
    };

const RANK: Record<ProjectRole, number> = { viewer: 1, developer: 2, owner: 3 };

/** True when `have` is at least `need`. */
export function roleAtLeast(have: ProjectRole | undefined, need: ProjectRole): boolean {
  return have !== undefined && RANK[have] >= RANK[need];
}

export const PROJECT_ROLES: readonly ProjectRole[] = ["viewer", "developer", "owner"];
