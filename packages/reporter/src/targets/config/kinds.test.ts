import { describe, expect, expectTypeOf, it } from "vitest";
import { parseReporterConfig } from "../../config/parse.js";
import { isConfigError } from "../../config/read.js";
import { resolveConfigSecrets } from "../../config/secrets.js";
import type { ElasticsearchConfig, SlackConfig, TargetsConfig, WebhookConfig } from "./config-types.js";
import {
  kindSpec,
  SUPPORTED_TARGET_KINDS,
  secretFields,
  type TARGET_KINDS,
  type TargetKind,
} from "./kinds.js";

/** A configuration block that sets every key the spec of `kind` declares, each to a value of its type. */
function everyKey(kind: TargetKind): Record<string, unknown> {
  const spec = kindSpec(kind);
  const block: Record<string, unknown> = {};
  for (const key of spec.strings) block[key] = `${kind}-${key}`;
  for (const key of spec.booleans ?? []) block[key] = true;
  for (const [key, allowed] of Object.entries(spec.enums ?? {})) block[key] = allowed.at(-1);
  return block;
}

describe("target kind specs", () => {
  it("the loader reads every key each spec declares, in parents and channels, without warnings", () => {
    const target = Object.fromEntries(
      SUPPORTED_TARGET_KINDS.map((kind) => [kind, { ...everyKey(kind), channels: [everyKey(kind)] }]),
    );
    const { config, warnings } = parseReporterConfig({ target });
    expect(warnings).toEqual([]);
    for (const kind of SUPPORTED_TARGET_KINDS) {
      expect(config.target[kind]).toEqual({ ...everyKey(kind), channels: [everyKey(kind)] });
    }
  });

  it("the loader refuses a value outside an enum with the key path", () => {
    const error = (() => {
      try {
        parseReporterConfig({ target: { elasticsearch: { channels: [{ rotation: "weekly" }] } } });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isConfigError(error) && [error.key, error.reason]).toEqual([
      "target.elasticsearch.channels[0].rotation",
      'must be one of daily, monthly, annually, none, not "weekly"',
    ]);
    // An empty rotation means the default, as before.
    const { config } = parseReporterConfig({ target: { elasticsearch: { host: "h", rotation: "" } } });
    expect(config.target.elasticsearch).toEqual({ host: "h" });
  });

  it("a Secret may set every string and enum key of a spec, and certificate", async () => {
    for (const kind of SUPPORTED_TARGET_KINDS) {
      const { config } = parseReporterConfig({ target: { [kind]: { secretRef: "s" } } });
      const values: Record<string, string> = {};
      for (const key of secretFields(kind)) values[key] = `secret-${key}`;
      const resolved = await resolveConfigSecrets(config, { readSecret: async () => values });
      expect(resolved.target[kind]).toEqual({ secretRef: "s", ...values });
    }
    expect(secretFields("elasticsearch")).toEqual([
      "host",
      "index",
      "username",
      "password",
      "apiKey",
      "rotation",
      "certificate",
    ]);
  });

  it("derives the config types from the specs", () => {
    expectTypeOf<SlackConfig["channel"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ElasticsearchConfig["rotation"]>().toEqualTypeOf<
      "daily" | "monthly" | "annually" | "none" | undefined
    >();
    expectTypeOf<ElasticsearchConfig["typelessApi"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<WebhookConfig["keepalive"]>().toEqualTypeOf<
      { interval?: string | number; params?: Record<string, string> } | undefined
    >();
    expectTypeOf<NonNullable<SlackConfig["channels"]>[number]>().toEqualTypeOf<SlackConfig>();
    expectTypeOf<keyof TargetsConfig>().toEqualTypeOf<keyof typeof TARGET_KINDS>();
    // @ts-expect-error: a rotation the spec does not list.
    const weekly: ElasticsearchConfig = { rotation: "weekly" };
    // @ts-expect-error: a key of another kind.
    const misplaced: SlackConfig = { chatId: "1" };
    expect([weekly, misplaced]).toHaveLength(2);
  });
});
