/** The shape of a Pod Security Standards check: its versioned implementations over a `PodView`. */
import type { PodView } from "./pod-view.js";
import type { CheckOutcome } from "./types.js";

/** One implementation of a check, in force from Kubernetes `v1.<minMinor>` on. */
export interface VersionedCheck {
  minMinor: number;
  run: (pod: PodView) => CheckOutcome | undefined;
}

/** A Pod Security Standards check as upstream defines it, with every versioned implementation. */
export interface CheckDefinition {
  id: string;
  controlName: string;
  level: "baseline" | "restricted";
  versions: readonly VersionedCheck[];
}
