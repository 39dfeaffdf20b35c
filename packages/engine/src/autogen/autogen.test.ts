import type { MatchResources, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { autogenRules } from "./autogen.js";
import { AUTOGEN_CONTROLLERS_ANNOTATION, autogenControllers } from "./controllers.js";

const POD_ONLY: MatchResources = { any: [{ resources: { kinds: ["Pod"] } }] };
const DEFAULTS = [
  "CronJob",
  "DaemonSet",
  "Deployment",
  "Job",
  "ReplicaSet",
  "ReplicationController",
  "StatefulSet",
];
const POD_CONTROLLERS = DEFAULTS.filter((c) => c !== "CronJob");

const rule = (extra: Partial<Rule> = {}): Rule => ({
  name: "check",
  match: POD_ONLY,
  validate: { message: "bad", pattern: { spec: { containers: [{ image: "reg/*" }] } } },
  ...extra,
});

const policy = (rules: Rule[], controllers?: string): Policy => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: {
    name: "p",
    ...(controllers === undefined ? {} : { annotations: { [AUTOGEN_CONTROLLERS_ANNOTATION]: controllers } }),
  },
  spec: {
    rules,
    applyRules: "All",
    validationFailureAction: "Audit",
    background: true,
    admission: true,
    emitWarning: false,
    failurePolicy: "Fail",
  },
});

describe("autogenControllers", () => {
  it.each<[string, Policy, string[]]>([
    ["default set for a Pod rule", policy([rule()]), DEFAULTS],
    [
      "annotation list, sorted",
      policy([rule()], "StatefulSet,Deployment, DaemonSet"),
      ["DaemonSet", "Deployment", "StatefulSet"],
    ],
    ["annotation none", policy([rule()], "none"), []],
    ["empty annotation", policy([rule()], ""), []],
    ["legacy all", policy([rule()], "all"), DEFAULTS],
    ["custom controller kept", policy([rule()], "CloneSet,Deployment"), ["CloneSet", "Deployment"]],
    [
      "Pod with other kinds",
      policy([rule({ match: { any: [{ resources: { kinds: ["Pod", "Service"] } }] } })]),
      [],
    ],
    ["legacy match form", policy([rule({ match: { resources: { kinds: ["Pod"] } } })]), DEFAULTS],
    ["all form", policy([rule({ match: { all: [{ resources: { kinds: ["Pod"] } }] } })]), DEFAULTS],
    ["names", policy([rule({ match: { any: [{ resources: { kinds: ["Pod"], names: ["x"] } }] } })]), []],
    ["deprecated name", policy([rule({ match: { resources: { kinds: ["Pod"], name: "x" } } })]), []],
    ["selector", policy([rule({ match: { any: [{ resources: { kinds: ["Pod"], selector: {} } }] } })]), []],
    [
      "annotations in exclude",
      policy([rule({ exclude: { any: [{ resources: { annotations: { skip: "true" } } }] } })]),
      [],
    ],
    [
      "namespaces and namespaceSelector keep autogen",
      policy([
        rule({
          match: {
            any: [
              {
                resources: {
                  kinds: ["Pod"],
                  namespaces: ["a"],
                  namespaceSelector: { matchLabels: { x: "y" } },
                },
              },
            ],
          },
        }),
      ]),
      DEFAULTS,
    ],
    ["only non-Pod kinds", policy([rule({ match: { any: [{ resources: { kinds: ["Service"] } }] } })]), []],
    [
      "a controller kind counts as needed",
      policy([rule({ match: { any: [{ resources: { kinds: ["Deployment"] } }] } })]),
      DEFAULTS,
    ],
    [
      "generate rule in the policy",
      policy([rule(), rule({ name: "gen", validate: undefined, generate: { kind: "ConfigMap" } })]),
      [],
    ],
    ["empty generate does not count", policy([rule({ generate: {} })]), DEFAULTS],
    [
      "patchesJson6902",
      policy([
        rule({ validate: undefined, mutate: { patchesJson6902: "- op: add\n  path: /x\n  value: 1" } }),
      ]),
      [],
    ],
    [
      "patchesJson6902 in foreach",
      policy([
        rule({ validate: undefined, mutate: { foreach: [{ list: "x", patchesJson6902: "- op: remove" }] } }),
      ]),
      [],
    ],
    [
      "names in another rule disable the whole policy",
      policy([
        rule(),
        rule({ name: "ns", match: { any: [{ resources: { kinds: ["Namespace"], names: ["x"] } }] } }),
      ]),
      [],
    ],
  ])("%s", (_name, p, expected) => {
    expect(autogenControllers(p)).toEqual(expected);
  });
});

const names = (p: Policy): string[] => autogenRules(p).map((r) => r.name);

describe("autogenRules: which rules are produced", () => {
  it.each<[string, Policy, string[]]>([
    ["Pod rule", policy([rule()]), ["check", "autogen-check", "autogen-cronjob-check"]],
    [
      "upstream order: per rule, controllers then CronJob, after all originals",
      policy([rule({ name: "a" }), rule({ name: "b" })]),
      ["a", "b", "autogen-a", "autogen-cronjob-a", "autogen-b", "autogen-cronjob-b"],
    ],
    ["no CronJob requested", policy([rule()], "Deployment"), ["check", "autogen-check"]],
    ["only CronJob requested", policy([rule()], "CronJob"), ["check", "autogen-cronjob-check"]],
    ["annotation none", policy([rule()], "none"), ["check"]],
    [
      "non-Pod rules are not expanded",
      policy([rule(), rule({ name: "svc", match: { any: [{ resources: { kinds: ["Service"] } }] } })]),
      ["check", "svc", "autogen-check", "autogen-cronjob-check"],
    ],
    [
      "exclude naming other kinds stops the rule",
      policy([rule({ exclude: { any: [{ resources: { kinds: ["Deployment"] } }] } })]),
      ["check"],
    ],
    [
      "existing autogen rules are replaced",
      policy([rule(), rule({ name: "autogen-check" })]),
      ["check", "autogen-check", "autogen-cronjob-check"],
    ],
    ["rule types autogen does not cover", policy([rule({ validate: { manifests: {} } })]), ["check"]],
    [
      "mutate existing without patch",
      policy([rule({ validate: undefined, mutate: { targets: [] } })]),
      ["check"],
    ],
    [
      "names are cut to 63 characters",
      policy([rule({ name: "a-very-long-rule-name-that-goes-on-and-on-and-on-forever" })]),
      [
        "a-very-long-rule-name-that-goes-on-and-on-and-on-forever",
        "autogen-a-very-long-rule-name-that-goes-on-and-on-and-on-foreve",
        "autogen-cronjob-a-very-long-rule-name-that-goes-on-and-on-and-o",
      ],
    ],
  ])("%s", (_name, p, expected) => {
    expect(names(p)).toEqual(expected);
  });
});

const generated = (r: Rule, controllers?: string): { ctrl: Rule; cron: Rule } => {
  const rules = autogenRules(policy([r], controllers));
  const ctrl = rules.find((x) => x.name === `autogen-${r.name}`);
  const cron = rules.find((x) => x.name === `autogen-cronjob-${r.name}`);
  if (!ctrl || !cron) throw new Error(`no autogen rules in ${rules.map((x) => x.name).join(",")}`);
  return { ctrl, cron };
};

describe("autogenRules: rule bodies", () => {
  it("wraps a pattern under the Pod template", () => {
    const { ctrl, cron } = generated(rule());
    expect(ctrl.validate?.pattern).toEqual({
      spec: { template: { spec: { containers: [{ image: "reg/*" }] } } },
    });
    expect(cron.validate?.pattern).toEqual({
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: "reg/*" }] } } } } },
    });
    expect(ctrl.validate?.message).toBe("bad");
  });

  it("wraps every anyPattern alternative", () => {
    const { ctrl, cron } = generated(
      rule({ validate: { anyPattern: [{ spec: { a: 1 } }, { metadata: { b: 2 } }] } }),
    );
    expect(ctrl.validate?.anyPattern).toEqual([
      { spec: { template: { spec: { a: 1 } } } },
      { spec: { template: { metadata: { b: 2 } } } },
    ]);
    expect(cron.validate?.anyPattern?.[1]).toEqual({
      spec: { jobTemplate: { spec: { template: { metadata: { b: 2 } } } } },
    });
  });

  it("retargets kinds in every block form", () => {
    const { ctrl, cron } = generated(
      rule({
        match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["prod"] } }] },
        exclude: {
          any: [{ resources: { kinds: ["Pod"], namespaces: ["kube-system"] } }, { clusterRoles: ["admin"] }],
        },
      }),
    );
    expect(ctrl.match).toEqual({ any: [{ resources: { kinds: POD_CONTROLLERS, namespaces: ["prod"] } }] });
    expect(ctrl.exclude).toEqual({
      any: [
        { resources: { kinds: POD_CONTROLLERS, namespaces: ["kube-system"] } },
        { clusterRoles: ["admin"] },
      ],
    });
    expect(cron.match).toEqual({ any: [{ resources: { kinds: ["CronJob"], namespaces: ["prod"] } }] });
    // Upstream sets the CronJob kind on every filter of the CronJob rule.
    expect(cron.exclude).toEqual({
      any: [
        { resources: { kinds: ["CronJob"], namespaces: ["kube-system"] } },
        { resources: { kinds: ["CronJob"] }, clusterRoles: ["admin"] },
      ],
    });
  });

  it("retargets the legacy form", () => {
    const { ctrl } = generated(
      rule({
        match: { resources: { kinds: ["Pod"] } },
        exclude: { resources: { namespaces: ["kube-system"] } },
      }),
      "Deployment,CronJob",
    );
    expect(ctrl.match).toEqual({ resources: { kinds: ["Deployment"] } });
    expect(ctrl.exclude).toEqual({ resources: { namespaces: ["kube-system"] } });
  });

  it("rewrites request paths in every string, keeping the rest of the rule", () => {
    const { ctrl, cron } = generated(
      rule({
        context: [{ name: "imgs", variable: { jmesPath: "request.object.spec.containers[].image" } }],
        preconditions: {
          all: [{ key: "{{ request.oldObject.metadata.labels.x }}", operator: "Equals", value: "y" }],
        },
        validate: {
          message: "{{ request.object.metadata.name }} is bad",
          failureAction: "Enforce",
          deny: {
            conditions: {
              any: [{ key: '{{ request."object".metadata.name }}', operator: "Equals", value: "x" }],
            },
          },
        },
      }),
    );
    expect(ctrl.context?.[0]?.variable?.jmesPath).toBe(
      "request.object.spec.template.spec.containers[].image",
    );
    expect(ctrl.preconditions).toEqual({
      all: [
        { key: "{{ request.oldObject.spec.template.metadata.labels.x }}", operator: "Equals", value: "y" },
      ],
    });
    expect(ctrl.validate?.message).toBe("{{ request.object.spec.template.metadata.name }} is bad");
    expect(ctrl.validate?.failureAction).toBe("Enforce");
    expect(ctrl.validate?.deny).toEqual({
      conditions: { any: [{ key: '{{ request."object".metadata.name }}', operator: "Equals", value: "x" }] },
    });
    expect(cron.context?.[0]?.variable?.jmesPath).toBe(
      "request.object.spec.jobTemplate.spec.template.spec.containers[].image",
    );
    expect(cron.validate?.message).toBe(
      "{{ request.object.spec.jobTemplate.spec.template.metadata.name }} is bad",
    );
  });

  it("keeps foreach validations and rewrites their lists", () => {
    const { ctrl, cron } = generated(
      rule({
        validate: { foreach: [{ list: "request.object.spec.containers", pattern: { image: "!*:latest" } }] },
      }),
    );
    expect(ctrl.validate?.foreach).toEqual([
      { list: "request.object.spec.template.spec.containers", pattern: { image: "!*:latest" } },
    ]);
    expect(cron.validate?.foreach?.[0]?.list).toBe(
      "request.object.spec.jobTemplate.spec.template.spec.containers",
    );
  });

  it("copies podSecurity unchanged", () => {
    const podSecurity = {
      level: "baseline",
      version: "latest",
      exclude: [{ controlName: "Capabilities", images: ["x*"] }],
    };
    const { ctrl, cron } = generated(rule({ validate: { podSecurity } }));
    expect(ctrl.validate?.podSecurity).toEqual(podSecurity);
    expect(cron.validate?.podSecurity).toEqual(podSecurity);
  });

  it("wraps strategic merge patches, also in mutate foreach", () => {
    const psm = { metadata: { labels: { a: "b" } } };
    const direct = generated(rule({ validate: undefined, mutate: { patchStrategicMerge: psm } }));
    expect(direct.ctrl.mutate).toEqual({ patchStrategicMerge: { spec: { template: psm } } });
    expect(direct.cron.mutate).toEqual({
      patchStrategicMerge: { spec: { jobTemplate: { spec: { template: psm } } } },
    });
    const foreach = generated(
      rule({
        validate: undefined,
        mutate: { foreach: [{ list: "request.object.spec.containers", patchStrategicMerge: psm }] },
      }),
    );
    expect(foreach.ctrl.mutate).toEqual({
      foreach: [
        {
          list: "request.object.spec.template.spec.containers",
          patchStrategicMerge: { spec: { template: psm } },
        },
      ],
    });
  });

  it("rewrites CEL expressions on object / oldObject", () => {
    const cel = {
      expressions: [{ expression: "object.spec.containers.all(c, c.image != oldObject.metadata.name)" }],
    };
    const { ctrl, cron } = generated(rule({ validate: { cel } }));
    expect(ctrl.validate?.cel).toEqual({
      expressions: [
        {
          expression:
            "object.spec.template.spec.containers.all(c, c.image != oldObject.spec.template.metadata.name)",
        },
      ],
    });
    expect(cron.validate?.cel).toEqual({
      expressions: [
        {
          expression:
            "object.spec.jobTemplate.spec.template.spec.containers.all(c, c.image != oldObject.spec.jobTemplate.spec.template.metadata.name)",
        },
      ],
    });
  });

  it("shifts pattern references in messages", () => {
    const { ctrl, cron } = generated(
      rule({ validate: { message: "needs $(./../pattern/spec/x)", pattern: { spec: { x: "?*" } } } }),
    );
    expect(ctrl.validate?.message).toBe("needs $(./../pattern/spec/template/spec/x)");
    expect(cron.validate?.message).toBe(
      "needs $(./../pattern/spec/jobTemplate/spec/template/spec/template/spec/x)",
    );
  });

  it("never mutates the input policy", () => {
    const p = policy([
      rule({
        validate: { deny: { conditions: [{ key: "{{ request.object.spec.x }}", operator: "Equals" }] } },
      }),
    ]);
    const before = structuredClone(p);
    autogenRules(p);
    expect(p).toEqual(before);
  });
});
