/**
 * Whether PolicyExceptions count, and from where: upstream's `--enablePolicyException` (off by
 * default, so that nobody who can create a PolicyException somewhere bypasses an Enforce policy) and
 * `--exceptionNamespace` (the one namespace exceptions are accepted from; unset or `*`: all). One
 * description shared by the admission controller, the reports controller and their policy
 * validation webhook.
 */
import { matchWildcard } from "@kyverno-ts/engine";

/** The PolicyException settings of a controller. */
export interface ExceptionSettings {
  /** `--enablePolicyException`: false ignores every PolicyException. */
  readonly enabled: boolean;
  /** `--exceptionNamespace`: the namespace exceptions are accepted from; unset or `*` for all. */
  readonly namespace?: string;
}

/** Upstream's default: PolicyExceptions are not processed. */
export const EXCEPTIONS_DISABLED: ExceptionSettings = { enabled: false };

/** The settings of the `--enablePolicyException` / `--exceptionNamespace` flags. */
export function exceptionSettings(enabled: boolean, namespace: string | undefined): ExceptionSettings {
  return namespace === undefined || namespace === "" ? { enabled } : { enabled, namespace };
}

/**
 * The namespaces exceptions are accepted from, as the engine's `exceptionNamespaces` option takes
 * them: none when disabled, `*` when every namespace counts.
 */
export function acceptedExceptionNamespaces(settings: ExceptionSettings): readonly string[] {
  if (!settings.enabled) return [];
  return settings.namespace === undefined ? ["*"] : [settings.namespace];
}

/** The namespace to watch PolicyExceptions in (undefined: all namespaces). */
export function watchedExceptionNamespace(settings: ExceptionSettings): string | undefined {
  const ns = settings.namespace;
  return ns === undefined || /[*?]/.test(ns) ? undefined : ns;
}

/** Upstream's warnings when a PolicyException is created that will not be processed as written. */
export const ExceptionWarnings = {
  disabled: "PolicyException resources would not be processed until it is enabled.",
  namespaceFlagUnset: "The exceptionNamespace flag is not set",
  namespaceMismatch: "PolicyException resource namespace must match the defined namespace.",
} as const;

/** What the exception validation webhook warns about a PolicyException in `namespace`. */
export function exceptionValidationWarnings(settings: ExceptionSettings, namespace: string): string[] {
  if (!settings.enabled) return [ExceptionWarnings.disabled];
  const accepted = settings.namespace;
  if (accepted === undefined) return [ExceptionWarnings.namespaceFlagUnset];
  if (accepted !== "*" && !matchWildcard(accepted, namespace)) return [ExceptionWarnings.namespaceMismatch];
  return [];
}
