/**
 * Access control as Policy Reporter UI does it: allow lists of emails and groups on the default
 * boards (`ui.boards.accessControl`) and per cluster (`ui.clusters[].accessControl`). An empty
 * list pair allows everyone; otherwise the user needs a listed email or a listed group, in every
 * list that applies.
 */
import type { AccessControl, UiConfig } from "./config.js";
import type { SessionUser } from "./session.js";

/** Whether one allow list admits `user` (emails compared case-insensitively, groups exactly). */
export function allowedBy(control: AccessControl, user: Pick<SessionUser, "email" | "groups">): boolean {
  if (control.emails.length === 0 && control.groups.length === 0) return true;
  const email = user.email.toLowerCase();
  if (email !== "" && control.emails.some((e) => e.toLowerCase() === email)) return true;
  return user.groups.some((g) => control.groups.includes(g));
}

/** The allow lists that apply to this reporter: the boards' and this cluster's (`ui.name`). */
export function accessControlsOf(ui: Pick<UiConfig, "boards" | "clusters" | "name">): AccessControl[] {
  const cluster = ui.clusters.filter((c) => c.name === ui.name).map((c) => c.accessControl);
  return [ui.boards.accessControl, ...cluster];
}

/**
 * Whether `user` may use the dashboard. The basic-auth user is the operator's own account and is
 * always admitted; OpenID Connect users must pass every applicable allow list.
 */
export function isAllowed(user: SessionUser, controls: readonly AccessControl[]): boolean {
  if (user.method === "basic") return true;
  return controls.every((c) => allowedBy(c, user));
}
