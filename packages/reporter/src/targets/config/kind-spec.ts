/**
 * The shape of a target kind's description (`KindSpec`) and the configuration types derived from it:
 * a kind's keys are written once, in its spec, and the config type, the loader's key lists, the
 * Secret keys and the build table all read them from there.
 */
import type { Section } from "../../config/read.js";
import type { FilterConfig } from "../filter/filter.js";
import type { BaseTargetOptions, DeliveryOptions, Target, TargetDeps } from "../types.js";
import type { KeepaliveOptions } from "../webhook/webhook.js";

/** Options every target (and channel) accepts. */
export interface CommonTargetConfig {
  name?: string;
  /** "" < info < low < medium < high < critical; legacy priorities (warning, error…) are accepted. */
  minimumSeverity?: string;
  /** Legacy alias of `minimumSeverity`. */
  minimumPriority?: string;
  sources?: string[];
  /** Default true. */
  skipExistingOnStartup?: boolean;
  /** Opt-in: notify when a notified failure turns to pass. */
  sendResolved?: boolean;
  customFields?: Record<string, string>;
  filter?: FilterConfig;
  headers?: Record<string, string>;
  /** Path to the server's CA certificate (PEM). */
  certificate?: string;
  skipTLS?: boolean;
  /** Timeout and retries (an extension; upstream has fixed values). */
  delivery?: DeliveryOptions;
  /** A Secret in the reporter's namespace whose keys override this config's (resolved by the config loader). */
  secretRef?: string;
  /** A JSON file whose keys override this config's (resolved by the config loader). */
  mountedSecret?: string;
}

/** The keys of `T` whose values are exactly `V`. */
type KeysOf<T, V> = { [K in keyof T]-?: [NonNullable<T[K]>] extends [V] ? K : never }[keyof T];

/** The string keys of {@link CommonTargetConfig}, read as strings by the loader. */
export const COMMON_STRING_KEYS = [
  "name",
  "minimumSeverity",
  "minimumPriority",
  "certificate",
  "secretRef",
  "mountedSecret",
] as const satisfies readonly KeysOf<CommonTargetConfig, string>[];

/** The boolean keys of {@link CommonTargetConfig}. */
export const COMMON_BOOLEAN_KEYS = [
  "skipExistingOnStartup",
  "sendResolved",
  "skipTLS",
] as const satisfies readonly KeysOf<CommonTargetConfig, boolean>[];

// The lists above name every string and boolean key of the interface: a key added to one and not the
// other fails to compile here.
type Unlisted =
  | Exclude<KeysOf<CommonTargetConfig, string>, (typeof COMMON_STRING_KEYS)[number]>
  | Exclude<KeysOf<CommonTargetConfig, boolean>, (typeof COMMON_BOOLEAN_KEYS)[number]>;
const commonKeysListed: [Unlisted] extends [never] ? true : Unlisted = true;
void commonKeysListed;

/** Keys whose value is one of a closed list, e.g. `{ rotation: ["daily", "monthly"] }`. */
export type EnumKeys = Readonly<Record<string, readonly string[]>>;

/** The kind's own keys as a config type: strings, booleans, enums and structured keys, all optional. */
export type KindFields<S extends string, B extends string, E extends EnumKeys, O extends object> = {
  [K in S]?: string;
} & { [K in B]?: boolean } & { [K in keyof E]?: E[K][number] } & { [K in keyof O]?: O[K] };

/** A kind's configuration: the common options, its own keys, and channels of the same shape. */
export type KindConfigOf<F> = CommonTargetConfig & F & { channels?: KindConfigOf<F>[] };

/** What `create` receives besides the configuration: the name, custom fields, headers, delivery. */
export type BuildBase = BaseTargetOptions & { name: string };

/**
 * One kind of target, described once. `S`, `B`, `E` and `O` are inferred from the literal (use
 * {@link defineKind}); the kind's config type is {@link KindConfigOf} of them.
 */
export interface KindSpec<S extends string, B extends string, E extends EnumKeys, O extends object> {
  /** Default name of the parent target. */
  label: string;
  /** String keys; also the keys a `secretRef` Secret or `mountedSecret` file may set. */
  strings: readonly S[];
  /** Boolean keys. */
  booleans?: readonly B[];
  /** Keys with a closed set of values; the loader refuses others with the key path. Secrets may set them. */
  enums?: E;
  /** Keys holding a mapping, each with its reader (undefined: leave the key unset). */
  objects?: { readonly [K in keyof O]: (section: Section) => O[K] | undefined };
  /** The keys that make a target usable (all must be set and non-empty). */
  required: readonly S[];
  /** Builds the target from a (channel-merged) configuration. */
  create(config: NoInfer<KindConfigOf<KindFields<S, B, E, O>>>, base: BuildBase, deps: TargetDeps): Target;
  /** A heartbeat to run beside the target (webhook `keepalive`); throws `TargetConfigError` when invalid. */
  keepalive?(
    config: NoInfer<KindConfigOf<KindFields<S, B, E, O>>>,
    base: BuildBase,
    path: string,
  ): KeepaliveOptions | undefined;
}

/** A spec with its types widened, for code that handles every kind alike (loader, secrets, build). */
export interface AnyKindSpec {
  label: string;
  strings: readonly string[];
  booleans?: readonly string[];
  enums?: EnumKeys;
  objects?: Readonly<Record<string, (section: Section) => unknown>>;
  required: readonly string[];
  create(config: CommonTargetConfig, base: BuildBase, deps: TargetDeps): Target;
  keepalive?(config: CommonTargetConfig, base: BuildBase, path: string): KeepaliveOptions | undefined;
}

/** The config type of a spec. */
export type ConfigOfSpec<T> =
  T extends KindSpec<infer S, infer B, infer E, infer O> ? KindConfigOf<KindFields<S, B, E, O>> : never;

/** Declares a kind; the identity, so that TypeScript infers the key lists and types `create`'s config. */
export function defineKind<
  const S extends string,
  const B extends string = never,
  const E extends EnumKeys = Record<never, never>,
  O extends object = Record<never, never>,
>(spec: KindSpec<S, B, E, O>): KindSpec<S, B, E, O> {
  return spec;
}
