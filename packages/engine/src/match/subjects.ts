import type { Subject } from "@kyverno-ts/api";
import { matchWildcard } from "../wildcard/wildcard.js";

/** The requester fields that subject matching reads. */
export interface RequestUser {
  username?: string;
  groups?: string[];
}

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

/**
 * True when any subject names the requester: `User` against the username, `Group` against any group,
 * `ServiceAccount` against the username `system:serviceaccount:<namespace>:<name>`. Names take wildcards.
 * Without user info (background scans) nothing matches.
 */
export function matchSubjects(subjects: readonly Subject[], user: RequestUser | undefined): boolean {
  if (user === undefined) return false;
  const username = user.username ?? "";
  const groups = user.groups ?? [];
  return subjects.some((subject) => {
    switch (subject.kind) {
      case "User":
        return matchWildcard(subject.name, username);
      case "Group":
        return groups.some((g) => matchWildcard(subject.name, g));
      case "ServiceAccount":
        return matchWildcard(`${SERVICE_ACCOUNT_PREFIX}${subject.namespace ?? ""}:${subject.name}`, username);
      default:
        return false;
    }
  });
}

/** True when the requester holds one of the listed (cluster) roles; names compare exactly, as upstream. */
export function matchRoles(wanted: readonly string[], held: readonly string[] | undefined): boolean {
  return (held ?? []).some((role) => wanted.includes(role));
}
