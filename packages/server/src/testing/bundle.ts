/** The bundled policy set (`policies/*.yaml`) as the end-to-end suites install it. */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const POLICIES = fileURLToPath(new URL("../../../../policies/", import.meta.url));

/**
 * The bundled policies, one YAML text each (file order), with the failure action switched to
 * Enforce as `kyverno-ts bundle --action Enforce` prints them.
 */
export function enforcedBundle(): string[] {
  return readdirSync(POLICIES)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) =>
      readFileSync(`${POLICIES}${f}`, "utf8").replace(
        /validationFailureAction: Audit/g,
        "validationFailureAction: Enforce",
      ),
    );
}
