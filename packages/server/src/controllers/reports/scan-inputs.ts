/**
 * The inputs of a resource's background scan, as one digest: the resource (uid and resourceVersion),
 * every policy that can report on it (key and resourceVersion), the exceptions of the scanned ones,
 * the labels of its namespace, the report limits and the release. The report carries the digest (bound to its
 * content, see `report-writer.ts`), so a scan whose inputs did not change, also after a restart,
 * needs no evaluation: upstream's background controller skips such resources the same way (its
 * reports carry the resource hash and the policies' resourceVersions).
 *
 * A scan is only skipped when its results follow from these inputs alone: no digest (always evaluate)
 * for a policy whose rules read context entries (ConfigMaps, API calls, global context, image data),
 * the time, random numbers, CEL (which sees the namespace object) or verify images, nor for a resource or policy without a
 * resourceVersion.
 */
import { hash } from "node:crypto";
import type { PolicyException } from "@kyverno-ts/api";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import type { ReportLimits } from "../../reports/report-builder.js";

/** What a rule reads beyond the resource, its namespace's labels and its exceptions. */
const READS_MORE = /"context"|time_|random\(|"cel"|verifyImages/;

/** The digest of one scan's inputs; see `createScanInputs`. */
export interface ScanInputs {
  /**
   * The digest for a live resource, or undefined when a scan of it must always evaluate.
   * `scanned`: the policies the scan evaluates; `reporting`: every other policy whose rows its report
   * may hold (admission-fed rules), by key and version only.
   */
  digest(input: {
    uid: string;
    resourceVersion: string | undefined;
    namespaceLabels: Record<string, string> | undefined;
    scanned: readonly CachedPolicy[];
    reporting: readonly CachedPolicy[];
  }): string | undefined;
}

/** `namespace/name@resourceVersion` of a policy or exception, undefined without a resourceVersion. */
function versionOf(metadata: { name?: string; namespace?: string; resourceVersion?: string }) {
  const rv = metadata.resourceVersion;
  return rv === undefined || rv === ""
    ? undefined
    : `${metadata.namespace ?? ""}/${metadata.name ?? ""}@${rv}`;
}

/** Creates the digest function over the policy cache (its exceptions) and the report limits. */
export function createScanInputs(options: {
  cache: Pick<PolicyCache, "exceptionsFor">;
  limits: ReportLimits;
  /** The evaluating release (an upgrade evaluates everything again). */
  version?: string;
}): ScanInputs {
  const limits = `${options.version ?? ""}\u0000${JSON.stringify(options.limits)}`;
  // Computed once per cached policy (a changed policy is a new object).
  const pure = new WeakMap<CachedPolicy, boolean>();
  const isPure = (p: CachedPolicy): boolean => {
    let known = pure.get(p);
    if (known === undefined) {
      known = !READS_MORE.test(JSON.stringify(p.policy.spec));
      pure.set(p, known);
    }
    return known;
  };
  const exceptionVersion = (e: PolicyException) => versionOf(e.metadata);

  /** The policies' part of the digest text (`s`, `e` and `r` parts joined), undefined when there is none. */
  const policyText = (
    scanned: readonly CachedPolicy[],
    reporting: readonly CachedPolicy[],
    exceptions: ReadonlyArray<readonly PolicyException[]>,
  ): string | undefined => {
    const parts: string[] = [];
    for (let i = 0; i < scanned.length; i++) {
      const p = scanned[i] as CachedPolicy;
      const version = versionOf(p.policy.metadata);
      if (version === undefined || !isPure(p)) return undefined;
      parts.push(`s${version}`);
      for (const e of exceptions[i] ?? []) {
        const ev = exceptionVersion(e);
        if (ev === undefined) return undefined;
        parts.push(`e${ev}`);
      }
    }
    for (const p of reporting) {
      const version = versionOf(p.policy.metadata);
      if (version === undefined) return undefined;
      parts.push(`r${version}`);
    }
    return parts.join("\u0000");
  };
  // The policies' part per selection: the reconciler passes the same arrays for every resource of a
  // kind in a namespace while no policy changes, and the policy cache the same exception lists while
  // no exception changes (any other array is simply a miss).
  const remembered = new WeakMap<
    readonly CachedPolicy[],
    {
      scanned: readonly CachedPolicy[];
      exceptions: Array<readonly PolicyException[]>;
      text: string | undefined;
    }
  >();
  const policiesPart = (scanned: readonly CachedPolicy[], reporting: readonly CachedPolicy[]) => {
    const exceptions = scanned.map((p) => options.cache.exceptionsFor(p));
    const known = remembered.get(reporting);
    if (
      known !== undefined &&
      known.scanned === scanned &&
      known.exceptions.every((list, i) => list === exceptions[i])
    )
      return known.text;
    const text = policyText(scanned, reporting, exceptions);
    remembered.set(reporting, { scanned, exceptions, text });
    return text;
  };

  return {
    digest({ uid, resourceVersion, namespaceLabels, scanned, reporting }) {
      if (resourceVersion === undefined || resourceVersion === "") return undefined;
      const policies = policiesPart(scanned, reporting);
      if (policies === undefined) return undefined;
      // The parts joined by NUL: uid, resourceVersion, limits, the policies' parts, the labels' parts.
      let text = `${uid}\u0000${resourceVersion}\u0000${limits}`;
      if (policies !== "") text += `\u0000${policies}`;
      if (namespaceLabels !== undefined)
        for (const [k, v] of Object.entries(namespaceLabels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          text += `\u0000l${k}=${v}`;
      return hash("sha1", text, "base64");
    },
  };
}
