/**
 * The admission command's entry (`@kyverno-ts/server/admission`): what `kyverno-ts admission` needs,
 * without the other controllers' modules that the package index brings in (background, cleanup,
 * reports). In standalone mode the cluster-only modules are not loaded either (see bin/admission.ts):
 * each module loaded stays in the server's heap for its whole life.
 */
export type { AdmissionCommandOptions, TextOutput } from "./bin/admission.js";
export { runAdmissionCommand } from "./bin/admission.js";
export { ADMISSION_DESCRIPTION } from "./bin/args.js";
export { flagsOf } from "./flags/catalog.js";
