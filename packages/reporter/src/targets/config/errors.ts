/** The error of an invalid `target:` configuration value. */

/** A configuration problem: the key path and what is wrong with it. */
export class TargetConfigError extends Error {
  override readonly name = "TargetConfigError";
  readonly code = "TARGET_CONFIG_INVALID";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}
