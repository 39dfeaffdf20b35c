import type { Writable } from "node:stream";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { runApply } from "./commands/apply.js";
import { type BundleAction, runBundle } from "./commands/bundle.js";
import { runCreateException } from "./commands/create-exception.js";
import { runJpFunction, runJpParse, runJpQuery } from "./commands/jp.js";
import { type PlaygroundFlags, runPlayground } from "./commands/playground.js";
import { runTest } from "./commands/test.js";
import { cliVersion, runVersion } from "./commands/version.js";
import type { CliIo } from "./io.js";
import { ExitCode } from "./io.js";
import { controllerHelp } from "./output/controller-help.js";
import { Help } from "./output/help.js";
import { CommonMessages } from "./output/messages.js";
import { reportProblems } from "./output/problems.js";

const collect = (value: string, previous: string[]) => [
  ...previous,
  ...value.split(",").filter((v) => v.trim() !== ""),
];
const collectRaw = (value: string, previous: string[]) => [...previous, value];
const integer = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 255)
    throw new InvalidArgumentError("expected an integer between 0 and 255");
  return n;
};

interface RawApplyOptions {
  resource: string[];
  resources: string[];
  valuesFile?: string;
  set: string[];
  userinfo?: string;
  exception: string[];
  exceptions: string[];
  exceptionsWithinPolicies?: boolean;
  policyReport?: boolean;
  auditWarn?: boolean;
  detailedResults?: boolean;
  table?: boolean;
  stdin?: boolean;
  output?: string;
  outputFormat: "json" | "yaml";
  exceptionNamespace: string[];
  targetResource: string[];
  targetResources: string[];
  clusterResource: string[];
  clusterResources: string[];
  contextFile?: string;
  contextPath?: string;
  json: string[];
  parameterResource: string[];
  warnExitCode: number;
  warnNoPass?: boolean;
  cluster?: boolean;
}

interface RawTestOptions {
  fileName: string;
  testCaseSelector: string;
  failOnly?: boolean;
  detailedResults?: boolean;
  junitPath?: string;
  output?: "json" | "table" | "junit";
  requireTests?: boolean;
}

/** The apply flags naming what is evaluated: policies, resources, values, exceptions, context. */
function applyInputFlags(command: Command): Command {
  return command
    .argument("[policies...]", "policy files or folders (`-` reads policies from stdin)")
    .option(
      "-r, --resource <paths>",
      "resource files or folders, comma-separated or repeated (`-` for stdin)",
      collect,
      [],
    )
    .addOption(
      new Option("--resources <paths>", "alias of --resource").argParser(collect).default([]).hideHelp(),
    )
    .option("-f, --values-file <file>", "Values file with variables, namespace labels and per-rule values")
    .option("-s, --set <key=value,...>", "variables, comma-separated or repeated", collectRaw, [])
    .option("-u, --userinfo <file>", "UserInfo file: roles, cluster roles and the requesting user")
    .option("-e, --exception <files>", "PolicyException files, comma-separated or repeated", collect, [])
    .addOption(
      new Option("--exceptions <files>", "alias of --exception").argParser(collect).default([]).hideHelp(),
    )
    .addOption(
      new Option(
        "--exception-namespace <namespaces>",
        "accept PolicyExceptions only from these namespaces (comma-separated or repeated, wildcards)",
      )
        .argParser(collect)
        .default([], "all"),
    )
    .option("--exceptions-within-policies", "also use PolicyExceptions found among the policy files")
    .option(
      "--target-resource <paths>",
      "files of existing resources that mutate-existing rules (mutate.targets) patch, comma-separated or repeated",
      collect,
      [],
    )
    .option("--target-resources <dirs>", "folders of mutate-existing target resources", collect, [])
    .option(
      "--cluster-resource <paths>",
      "files or folders of resources that exist in the cluster: clone sources of generate rules (also mutate-existing targets)",
      collect,
      [],
    )
    .addOption(
      new Option("--cluster-resources <paths>", "alias of --cluster-resource")
        .argParser(collect)
        .default([])
        .hideHelp(),
    )
    .option(
      "--context-file <file>",
      "Context file (cli.kyverno.io/v1alpha1 Context): objects and image metadata CEL's resource.Get/List and image.GetMetadata read",
    )
    .addOption(new Option("--context-path <file>", "alias of --context-file").hideHelp())
    .option(
      "--json <paths>",
      "JSON payload files (any JSON, no kind needed) for ValidatingPolicies in JSON mode, comma-separated or repeated",
      collect,
      [],
    )
    .option(
      "--parameter-resource <paths>",
      "objects that Validating/MutatingAdmissionPolicy bindings take as parameters, comma-separated or repeated",
      collect,
      [],
    );
}

/** The apply flags shaping the output and the exit status. */
function applyOutputFlags(command: Command): Command {
  return command
    .option("-p, --policy-report", "print a wgpolicyk8s.io/v1alpha2 ClusterPolicyReport after the summary")
    .option("--audit-warn", "report failures of Audit rules as warnings")
    .option("--detailed-results", "show rule messages in the table")
    .option("-t, --table", "show results as a table")
    .option("-i, --stdin", "read resources from stdin (same as --resource -)")
    .option(
      "-o, --output <json|yaml|path>",
      "json or yaml: print only the policy report (machine output); any other value: write the mutated and generated resources to this path (a directory, one file per resource; or a .yaml file)",
    )
    .addOption(
      new Option("--output-format <format>", "format of the --policy-report block")
        .choices(["json", "yaml"])
        .default("yaml"),
    )
    .option(
      "--warn-exit-code <code>",
      "exit status when there are warnings but no failures or errors",
      integer,
      0,
    )
    .option("--warn-no-pass", "exit with --warn-exit-code when no resource passed any rule")
    .addOption(new Option("-c, --cluster", "not supported: the CLI works on files only").hideHelp())
    .addOption(
      new Option("--remove-color", "accepted for compatibility; output is never colored").hideHelp(),
    );
}

/** `runApply`'s options from the parsed flags (aliases merged, --output split into format or path). */
function applyOptionsOf(o: RawApplyOptions): Parameters<typeof runApply>[1] {
  const machine = o.output === "json" || o.output === "yaml" ? o.output : undefined;
  return {
    resource: [...o.resource, ...o.resources],
    set: o.set,
    exception: [...o.exception, ...o.exceptions],
    exceptionNamespace: o.exceptionNamespace,
    targetResource: [...o.targetResource, ...o.targetResources],
    clusterResource: [...o.clusterResource, ...o.clusterResources],
    json: o.json,
    parameterResource: o.parameterResource,
    exceptionsWithinPolicies: o.exceptionsWithinPolicies ?? false,
    policyReport: o.policyReport ?? false,
    auditWarn: o.auditWarn ?? false,
    detailedResults: o.detailedResults ?? false,
    table: o.table ?? false,
    stdin: o.stdin ?? false,
    outputFormat: o.outputFormat,
    warnExitCode: o.warnExitCode,
    warnNoPass: o.warnNoPass ?? false,
    ...(o.valuesFile !== undefined ? { valuesFile: o.valuesFile } : {}),
    ...(o.userinfo !== undefined ? { userinfo: o.userinfo } : {}),
    ...((o.contextFile ?? o.contextPath) !== undefined
      ? { contextFile: (o.contextFile ?? o.contextPath) as string }
      : {}),
    ...(machine !== undefined ? { output: machine } : {}),
    ...(o.output !== undefined && machine === undefined ? { outputPath: o.output } : {}),
  };
}

/** `kyverno apply`: its flags (inputs, then output), and the options `runApply` takes from them. */
function applyCommand(io: CliIo, done: (status: number) => void): Command {
  const command = new Command("apply")
    .summary("Apply policies on resources")
    .description(Help.apply.description);
  return applyOutputFlags(applyInputFlags(command))
    .addHelpText("after", Help.apply.examples)
    .action(async function (this: Command, policies: string[]) {
      const o = this.opts<RawApplyOptions>();
      if (o.cluster) {
        done(reportProblems(io, [{ file: "--cluster", message: Help.apply.noCluster }]));
        return;
      }
      done(await runApply(policies, applyOptionsOf(o), io));
    });
}

function testCommand(io: CliIo, done: (status: number) => void): Command {
  return new Command("test")
    .summary("Run kyverno-test.yaml tests")
    .description(Help.test.description)
    .argument("[paths...]", "folders searched recursively for test files, or test files (default: .)")
    .option("-f, --file-name <name>", "test file name to look for", "kyverno-test.yaml")
    .option("-t, --test-case-selector <selector>", "run only matching cases", "policy=*,rule=*,resource=*")
    .option("--fail-only", "show only failing result lines")
    .option("--detailed-results", "show rule messages")
    .option("--junit-path <file>", "also write JUnit XML to this file")
    .addOption(new Option("-o, --output <format>", "output format").choices(["table", "json", "junit"]))
    .addOption(
      new Option("--output-format <format>", "alias of --output")
        .choices(["table", "json", "junit"])
        .hideHelp(),
    )
    .option("--require-tests", "fail (exit 2) when no test file is found")
    .addOption(new Option("--remove-color", "accepted for compatibility; output is never colored").hideHelp())
    .addHelpText("after", Help.test.examples)
    .action(async function (this: Command, paths: string[]) {
      const o = this.opts<RawTestOptions & { outputFormat?: RawTestOptions["output"] }>();
      const output = o.output ?? o.outputFormat;
      const status = await runTest(
        paths,
        {
          fileName: o.fileName,
          testCaseSelector: o.testCaseSelector,
          failOnly: o.failOnly ?? false,
          detailedResults: o.detailedResults ?? false,
          requireTests: o.requireTests ?? false,
          ...(output === "json" ? { output: "json" } : {}),
          ...(output === "junit" ? { output: "junit" } : {}),
          ...(o.junitPath !== undefined ? { junitPath: o.junitPath } : {}),
        },
        io,
      );
      done(status);
    });
}

const booleanValue = (value: string) => {
  const v = value.toLowerCase();
  if (v === "true" || v === "1" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "no") return false;
  throw new InvalidArgumentError("expected true or false");
};

const bundleAction = (value: string): BundleAction => {
  const v = value.toLowerCase();
  if (v === "audit") return "Audit";
  if (v === "enforce") return "Enforce";
  throw new InvalidArgumentError("expected Audit or Enforce");
};

function createCommand(io: CliIo, done: (status: number) => void): Command {
  const create = new Command("create")
    .summary("Create Kyverno resources")
    .description(Help.create.description);
  create
    .command("exception")
    .description(Help.create.exception)
    .argument("<name>", "name of the PolicyException")
    .option("--namespace <namespace>", "namespace of the PolicyException")
    .option(
      "--policy-rules <policy,rule-1,rule-2,...>",
      "policy name (ns/name for a namespaced Policy) followed by rule names; repeatable",
      collectRaw,
      [],
    )
    .option(
      "--any <filter>",
      "resource filter kind=…,name=…,namespace=…,operation=… (repeatable)",
      collectRaw,
      [],
    )
    .option("--all <filter>", "resource filter that must all hold (repeatable)", collectRaw, [])
    .option(
      "-b, --background [bool]",
      "whether the exception applies to background scans too (default true)",
      booleanValue,
      true,
    )
    .option("-o, --output <file>", "write the PolicyException to a file instead of stdout (`-`: stdout)")
    .addHelpText("after", Help.create.exceptionExamples)
    .action(function (this: Command, name: string) {
      const o = this.opts<{
        namespace?: string;
        policyRules: string[];
        any: string[];
        all: string[];
        background: boolean;
        output?: string;
      }>();
      done(
        runCreateException(
          name,
          {
            policyRules: o.policyRules,
            any: o.any,
            all: o.all,
            background: o.background,
            ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
            ...(o.output !== undefined ? { output: o.output } : {}),
          },
          io,
        ),
      );
    });
  return create;
}

function bundleCommand(io: CliIo, done: (status: number) => void): Command {
  return new Command("bundle")
    .summary("Print the bundled policy set, in Audit or Enforce mode")
    .description(Help.bundle.description)
    .option("--action <Audit|Enforce>", "failure action of every policy of the set", bundleAction, "Audit")
    .option("--out <dir>", "write one file per policy into this folder instead of printing")
    .addHelpText("after", Help.bundle.examples)
    .action(function (this: Command) {
      const o = this.opts<{ action: BundleAction; out?: string }>();
      done(runBundle({ action: o.action, ...(o.out !== undefined ? { out: o.out } : {}) }, io));
    });
}

function playgroundCommand(io: CliIo, done: (status: number) => void): Command {
  return new Command("playground")
    .summary("Start the local playground: API server, controllers, Policy Reporter and dashboard")
    .description(Help.playground.description)
    .option("--port <n>", "dashboard port (a free one is used when it is taken; 0: any)", portNumber, 8080)
    .option("--host <address>", "listen address of every server", "127.0.0.1")
    .option("--dir <path>", "folder for state, kubeconfig and logs (emptied at start)", ".playground")
    .option("--no-examples", "install the policies but apply no example manifest")
    .option("--setup-only", "stop once everything is set up and the summary printed")
    .addHelpText("after", Help.playground.examples)
    .action(async function (this: Command) {
      const o = this.opts<Omit<PlaygroundFlags, "setupOnly"> & { setupOnly?: boolean }>();
      done(await runPlayground({ ...o, setupOnly: o.setupOnly === true }, io));
    });
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`not a port number: ${JSON.stringify(value)}`);
  return n;
}

/** Long-running commands implemented by other packages; their flags are parsed there. */
function passThroughCommand(
  name: string,
  summary: string,
  run: (args: string[]) => Promise<number>,
  done: (status: number) => void,
): Command {
  const command = new Command(name)
    .summary(summary)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]")
    .action(async (args: string[]) => {
      done(await run(args));
    });
  PASS_THROUGH.add(command);
  return command;
}

/** Commands that parse their own arguments and print their own help (the controllers, the sandbox). */
const PASS_THROUGH = new WeakSet<Command>();

/**
 * `help <command>` as commander runs it, except for pass-through commands: their help comes from
 * their own packages (loaded on use), which commander's help command would print as a one-line
 * usage, so `help admission` runs `admission --help`.
 */
function helpArgv(program: Command, argv: readonly string[]): string[] {
  const [first, name] = argv;
  if (first !== "help" || name === undefined) return [...argv];
  const command = program.commands.find((c) => c.name() === name);
  return command !== undefined && PASS_THROUGH.has(command) ? [name, "--help"] : [...argv];
}

function jpCommand(io: CliIo, done: (status: number) => void): Command {
  const jp = new Command("jp").summary("JMESPath with Kyverno's functions").description(Help.jp.description);
  jp.addHelpText("after", Help.jp.examples);
  jp.command("query")
    .description("Evaluate JMESPath expressions on a JSON or YAML document")
    .argument("[expressions...]", "expressions (read from stdin when none and no -q)")
    .option("-i, --input <file>", "JSON or YAML input (default: stdin)")
    .option("-q, --query <file>", "read an expression from a file (repeatable)", collectRaw, [])
    .option("-c, --compact", "compact JSON output")
    .option("-u, --unquoted", "print string results without quotes")
    .addHelpText("after", Help.jp.queryExamples)
    .action(async function (this: Command, exprs: string[]) {
      const o = this.opts<{ input?: string; query: string[]; compact?: boolean; unquoted?: boolean }>();
      done(
        await runJpQuery(
          exprs,
          {
            query: o.query,
            compact: o.compact ?? false,
            unquoted: o.unquoted ?? false,
            ...(o.input ? { input: o.input } : {}),
          },
          io,
        ),
      );
    });
  jp.command("function")
    .description("List Kyverno's JMESPath functions with their signatures")
    .argument("[names...]", "only these functions")
    .addHelpText("after", Help.jp.functionExamples)
    .action((names: string[]) => done(runJpFunction(names, io)));
  jp.command("parse")
    .description("Check JMESPath expressions and print their syntax tree")
    .argument("[expressions...]", "expressions (read from stdin when none and no -f)")
    .option("-f, --file <file>", "read an expression from a file (repeatable)", collectRaw, [])
    .addHelpText("after", Help.jp.parseExamples)
    .action(async function (this: Command, exprs: string[]) {
      done(await runJpParse(exprs, this.opts<{ file: string[] }>().file, io));
    });
  return jp;
}

/** Builds the commander program; `done` receives each command's exit status. */
export function buildProgram(io: CliIo, done: (status: number) => void): Command {
  const program = new Command("kyverno-ts")
    .description(Help.root.description)
    .version(cliVersion(), "--version", "print the version")
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showSuggestionAfterError()
    .addHelpText("after", Help.root.examples);
  const configure = (c: Command) => {
    c.configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    }).exitOverride();
    for (const sub of c.commands) configure(sub);
    return c;
  };
  program.addCommand(configure(applyCommand(io, done)));
  program.addCommand(configure(testCommand(io, done)));
  program.addCommand(configure(jpCommand(io, done)));
  program.addCommand(configure(createCommand(io, done)));
  program.addCommand(configure(bundleCommand(io, done)));
  program.addCommand(configure(playgroundCommand(io, done)));
  program.addCommand(
    passThroughCommand(
      "admission",
      "Run the admission controller (in a cluster, or --standalone with policies from files)",
      async (args) => {
        // Loaded on use: the server packages are heavy and need Node 24 built-ins. The admission entry
        // leaves out the other controllers' modules (they would stay in the server's heap).
        const { runAdmissionCommand, ADMISSION_DESCRIPTION, flagsOf } = await import(
          "@kyverno-ts/server/admission"
        );
        const usage = controllerHelp("admission", ADMISSION_DESCRIPTION, flagsOf("admission"));
        return runAdmissionCommand({ args, stdout: io.stdout, stderr: io.stderr, usage });
      },
      done,
    ),
  );
  program.addCommand(
    passThroughCommand(
      "cleanup",
      "Run the cleanup controller: cleanup policies on their schedules and the cleanup.kyverno.io/ttl label (leader-elected)",
      async (args) => {
        const { runCleanupCommand, CLEANUP_DESCRIPTION, flagsOf } = await import("@kyverno-ts/server");
        const usage = controllerHelp("cleanup", CLEANUP_DESCRIPTION, flagsOf("cleanup"));
        return runCleanupCommand({ args, stdout: io.stdout, stderr: io.stderr, usage });
      },
      done,
    ),
  );
  program.addCommand(
    passThroughCommand(
      "reports",
      "Run the reports controller: background scans into PolicyReports (leader-elected)",
      async (args) => {
        const { runReportsCommand, REPORTS_DESCRIPTION, flagsOf } = await import("@kyverno-ts/server");
        const usage = controllerHelp("reports", REPORTS_DESCRIPTION, flagsOf("reports"));
        return runReportsCommand({ args, stdout: io.stdout, stderr: io.stderr, usage });
      },
      done,
    ),
  );
  program.addCommand(
    passThroughCommand(
      "background",
      "Run the background controller: generate and mutate-existing rules through UpdateRequests (leader-elected)",
      async (args) => {
        const { runBackgroundCommand, BACKGROUND_DESCRIPTION, flagsOf } = await import("@kyverno-ts/server");
        const usage = controllerHelp("background", BACKGROUND_DESCRIPTION, flagsOf("background"));
        return runBackgroundCommand({ args, stdout: io.stdout, stderr: io.stderr, usage });
      },
      done,
    ),
  );
  program.addCommand(
    passThroughCommand(
      "reporter",
      "Run Policy Reporter: ingest PolicyReports, REST API, metrics and notifications",
      async (args) => {
        const { runReporterCommand } = await import("@kyverno-ts/reporter");
        return runReporterCommand({ args, stdout: io.stdout, stderr: io.stderr });
      },
      done,
    ),
  );
  program.addCommand(
    passThroughCommand(
      "sandbox",
      "Run a local Kubernetes API server (kubectl works against it) until Ctrl+C",
      async (args) => {
        const { runSandboxCommand } = await import("@kyverno-ts/sandbox");
        return runSandboxCommand({ stdout: io.stdout as Writable, stderr: io.stderr as Writable, args });
      },
      done,
    ),
  );
  program.addCommand(
    configure(
      new Command("version")
        .description("Print the version")
        .addHelpText("after", Help.version.examples)
        .action(() => done(runVersion(io))),
    ),
  );
  return program;
}

/**
 * Runs the CLI in-process: parses `argv` (without `node` and the script), runs the command with
 * the injected I/O and resolves to its exit status (0 ok, 1 policy/test failures, 2 input errors).
 * Never calls `process.exit`; use `bin.ts` for the real process.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let status: number = ExitCode.Ok;
  const program = buildProgram(io, (s) => {
    status = s;
  });
  if (argv.length === 0) {
    program.outputHelp();
    return ExitCode.Ok;
  }
  try {
    await program.parseAsync(helpArgv(program, argv), { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.InputError;
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`${CommonMessages.error(`internal error: ${text}`)}\n`);
    return ExitCode.Failure;
  }
  return status;
}
