/**
 * `--help` of the controller subcommands (`admission`, `reports`, `background`, `cleanup`), laid out by
 * commander as the other commands' help, from the server's flag table: the flags that take effect,
 * kyverno-ts's own, then upstream's flags accepted without effect (with the reason).
 */
import type { ControllerName, FlagSpec } from "@kyverno-ts/server";
import { Command, Option } from "commander";

/** Headings of the three groups, in the order shown. */
export const HelpGroups = {
  upstream: "Upstream flags (Go syntax: -flag=value, --flag value; booleans --flag or --flag=false):",
  own: "kyverno-ts flags:",
  noEffect: "Accepted without effect (a warning at start says why):",
} as const;

const VALUE_NAMES: Readonly<Record<FlagSpec["type"], string>> = {
  bool: "",
  int: "<n>",
  float: "<n>",
  duration: "<duration>",
  string: "<value>",
};

function defaultText(spec: FlagSpec): string | undefined {
  const value =
    spec.default === "" ? undefined : spec.type === "string" ? JSON.stringify(spec.default) : spec.default;
  if (spec.env !== undefined) return value === undefined ? spec.env : `${spec.env} or ${value}`;
  return value;
}

function optionOf(spec: FlagSpec, controller: ControllerName): Option {
  const long = `--${spec.name}`;
  const flags =
    spec.type === "bool"
      ? spec.name.length === 1
        ? `-${spec.name}, ${long}`
        : long
      : `${spec.name.length === 1 ? `-${spec.name}, ` : ""}${long} ${spec.value ?? VALUE_NAMES[spec.type]}`;
  const effective = spec.implemented.includes(controller);
  const aliases = spec.aliases?.length ? ` (also ${spec.aliases.map((a) => `--${a}`).join(", ")})` : "";
  const text = effective
    ? `${spec.help}${aliases}`
    : `${spec.help} No effect: ${spec.reason ?? "not implemented"}.`;
  const option = new Option(flags, text).helpGroup(
    !effective ? HelpGroups.noEffect : spec.origin === "upstream" ? HelpGroups.upstream : HelpGroups.own,
  );
  const shown = defaultText(spec);
  if (shown === undefined) return option;
  // commander shows a boolean's default only when it is a boolean.
  return option.default(spec.type === "bool" ? spec.default === "true" : spec.default, shown);
}

/** The help text of `kyverno-ts <controller>`. */
export function controllerHelp(
  controller: ControllerName,
  description: string,
  flags: readonly FlagSpec[],
): string {
  const root = new Command("kyverno-ts");
  const command = new Command(controller)
    .usage("[flags]")
    // Paragraphs as one line each, wrapped by commander.
    .description(description.replace(/(?<!\n)\n(?!\n)/g, " "))
    .helpOption("-h, --help", "display help for command");
  const ordered = [...flags].sort(
    (a, b) => rank(a, controller) - rank(b, controller) || a.name.localeCompare(b.name),
  );
  for (const spec of ordered) command.addOption(optionOf(spec, controller));
  root.addCommand(command);
  return command.helpInformation();
}

function rank(spec: FlagSpec, controller: ControllerName): number {
  if (!spec.implemented.includes(controller)) return 2;
  return spec.origin === "upstream" ? 0 : 1;
}
