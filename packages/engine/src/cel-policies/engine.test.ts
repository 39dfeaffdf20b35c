import type { CelPolicy, CelPolicyException, JsonValue, KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createCelEngine } from "./engine.js";
import type { CelCompileOptions, CompiledCelPolicy } from "./types.js";

const podRules = {
  resourceRules: [
    { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
  ],
};

function pod(
  name: string,
  extra: Record<string, unknown> = {},
  labels: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "team", labels },
    spec: { containers: [{ name: "c", image: "nginx:1.25", ...extra }] },
  };
}

function deployment(name: string, privileged: boolean): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "team" },
    spec: {
      template: { spec: { containers: [{ name: "c", image: "x", securityContext: { privileged } }] } },
    },
  };
}

function vpol(spec: Record<string, unknown>, kind = "ValidatingPolicy", namespace?: string): CelPolicy {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "check", ...(namespace ? { namespace } : {}) },
    spec: { matchConstraints: podRules, ...spec },
  } as CelPolicy;
}

const engine = createCelEngine({
  clock: { now: () => new Date("2025-01-01T00:00:00Z").getTime() },
  namespaceLabels: (ns) => (ns === "team" ? { env: "prod" } : undefined),
});

function compile(policy: CelPolicy, options?: CelCompileOptions): CompiledCelPolicy {
  const result = engine.compile(policy, options);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.policy;
}

const noPrivileged = vpol({
  validationActions: ["Deny"],
  variables: [
    { name: "containers", expression: "object.spec.containers" },
    {
      name: "privileged",
      expression: "variables.containers.filter(c, c.?securityContext.?privileged.orValue(false))",
    },
  ],
  validations: [
    {
      expression: "variables.privileged.size() == 0",
      messageExpression: "'privileged: ' + variables.privileged.map(c, c.name).join(', ')",
    },
  ],
});

describe("ValidatingPolicy", () => {
  it("passes (message success, as upstream) and fails with one result named after no rule, and the message expression", () => {
    const p = compile(noPrivileged);
    const good = engine.validate(p, { resource: pod("good") });
    expect(good.policy).toEqual({ kind: "ValidatingPolicy", name: "check" });
    expect(good.rules).toEqual([
      { name: "", type: "Validation", status: "pass", message: "success", failureAction: "Enforce" },
    ]);
    const bad = engine.validate(p, { resource: pod("bad", { securityContext: { privileged: true } }) });
    expect(bad.rules[0]).toMatchObject({ status: "fail", message: "privileged: c" });
  });

  it("falls back to message, then to the failed expression", () => {
    const p = compile(vpol({ validations: [{ expression: "false", message: "static" }] }));
    expect(engine.validate(p, { resource: pod("a") }).rules[0]?.message).toBe("static");
    const q = compile(vpol({ validations: [{ expression: "1 == 2" }] }));
    expect(engine.validate(q, { resource: pod("a") }).rules[0]?.message).toBe("failed expression: 1 == 2");
  });

  it("gives no response when matchConstraints or matchConditions do not select the request", () => {
    const p = compile(
      vpol({
        matchConstraints: { ...podRules, namespaceSelector: { matchLabels: { env: "prod" } } },
        matchConditions: [
          { name: "labelled", expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" },
        ],
        validations: [{ expression: "false" }],
      }),
    );
    expect(engine.validate(p, { resource: pod("a") }).rules).toEqual([]);
    expect(engine.validate(p, { resource: pod("a", {}, { app: "x" }) }).rules[0]?.status).toBe("fail");
    expect(
      engine.validate(p, {
        resource: {
          ...pod("b", {}, { app: "x" }),
          metadata: { name: "b", namespace: "dev", labels: { app: "x" } },
        },
      }).rules,
    ).toEqual([]);
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "team" } };
    expect(engine.validate(p, { resource: configMap }).rules).toEqual([]);
  });

  it("matches a resource served under an equivalent group/version unless matchPolicy is Exact", () => {
    const deployRules = {
      resourceRules: [
        { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
      ],
    };
    const old = { ...deployment("legacy", true), apiVersion: "extensions/v1beta1" };
    const equivalent = compile(
      vpol({ matchConstraints: deployRules, validations: [{ expression: "false" }] }),
    );
    expect(engine.validate(equivalent, { resource: old }).rules[0]?.status).toBe("fail");
    const exact = compile(
      vpol({
        matchConstraints: { ...deployRules, matchPolicy: "Exact" },
        validations: [{ expression: "false" }],
      }),
    );
    expect(engine.validate(exact, { resource: old }).rules).toEqual([]);
  });

  it("reports an evaluation error as an error result", () => {
    const p = compile(vpol({ validations: [{ expression: "object.spec.nodeName == 'x'" }] }));
    expect(engine.validate(p, { resource: pod("a") }).rules[0]?.status).toBe("error");
  });

  it("applies to Pod controllers through autogen, unless disabled", () => {
    const p = compile(noPrivileged);
    expect(p.autogen).toEqual(["autogen", "autogen-cronjobs"]);
    expect(engine.validate(p, { resource: deployment("d", true) }).rules[0]?.status).toBe("fail");
    expect(engine.validate(p, { resource: deployment("d", false) }).rules[0]?.status).toBe("pass");
    const cronJob: KubeObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "cj", namespace: "team" },
      spec: {
        jobTemplate: {
          spec: {
            template: { spec: { containers: [{ name: "c", securityContext: { privileged: true } }] } },
          },
        },
      },
    };
    expect(engine.validate(p, { resource: cronJob }).rules[0]?.status).toBe("fail");
    const off = compile({
      ...noPrivileged,
      spec: { ...noPrivileged.spec, autogen: { podControllers: { controllers: [] } } },
    } as CelPolicy);
    expect(off.autogen).toEqual([]);
    expect(engine.validate(off, { resource: deployment("d", true) }).rules).toEqual([]);
  });

  it("sees namespaceObject, request and lazy variables", () => {
    const p = compile(
      vpol({
        variables: [
          { name: "env", expression: "namespaceObject.metadata.labels.env" },
          { name: "prod", expression: "variables.env == 'prod'" },
        ],
        validations: [
          { expression: "!variables.prod || request.operation == 'CREATE'", message: "only create in prod" },
        ],
      }),
    );
    expect(engine.validate(p, { resource: pod("a"), operation: "CREATE" }).rules[0]?.status).toBe("pass");
    const update = engine.validate(p, { resource: pod("a"), oldResource: pod("a"), operation: "UPDATE" });
    expect(update.rules[0]).toMatchObject({ status: "fail", message: "only create in prod" });
  });

  it("puts audit annotations in the result's properties", () => {
    const p = compile(
      vpol({
        auditAnnotations: [{ key: "image", valueExpression: "object.spec.containers[0].image" }],
        validations: [{ expression: "true" }],
      }),
    );
    expect(engine.validate(p, { resource: pod("a") }).rules[0]?.properties).toEqual({ image: "nginx:1.25" });
  });

  it("only sees its own namespace when namespaced", () => {
    const p = compile(
      vpol({ validations: [{ expression: "false" }] }, "NamespacedValidatingPolicy", "other"),
    );
    expect(p.namespace).toBe("other");
    expect(engine.validate(p, { resource: pod("a") }).rules).toEqual([]);
  });

  it("evaluates any JSON payload in JSON mode", () => {
    const p = compile(
      vpol({
        matchConstraints: undefined,
        evaluation: { mode: "JSON" },
        matchConditions: [{ name: "plan", expression: "has(object.planned_values)" }],
        validations: [{ expression: "object.planned_values.public == false" }],
      }),
    );
    const plan = { planned_values: { public: true } } as unknown as KubeObject;
    expect(engine.validate(p, { resource: plan }).rules[0]?.status).toBe("fail");
  });

  it("skips (or passes) requests a PolicyException's conditions select", () => {
    const exception = (reportResult?: "pass"): CelPolicyException => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "allow-debug", namespace: "team" },
      spec: {
        policyRefs: [{ name: "check", kind: "ValidatingPolicy" }],
        matchConditions: [{ name: "debug", expression: "object.metadata.name == 'debug'" }],
        ...(reportResult ? { reportResult } : {}),
      },
    });
    const p = compile(noPrivileged, { exceptions: [exception()] });
    const bad = { securityContext: { privileged: true } };
    const skipped = engine.validate(p, { resource: pod("debug", bad) }).rules[0];
    // Upstream's report row (the exceptions guide): rule `exception`, the exception named in the message.
    expect(skipped).toMatchObject({
      name: "exception",
      status: "skip",
      message: "rule is skipped due to policy exception: team/allow-debug",
      exception: { namespace: "team", name: "allow-debug" },
      properties: { exceptions: "allow-debug" },
    });
    expect(engine.validate(p, { resource: pod("other", bad) }).rules[0]?.status).toBe("fail");
    const passing = compile(noPrivileged, { exceptions: [exception("pass")] });
    expect(engine.validate(passing, { resource: pod("debug", bad) }).rules[0]?.status).toBe("pass");
  });

  it("gives exceptions with allowed values to the policy instead of skipping it", () => {
    const exception: CelPolicyException = {
      apiVersion: "policies.kyverno.io/v1beta1",
      kind: "PolicyException",
      metadata: { name: "allow-debug", namespace: "team" },
      spec: {
        policyRefs: [{ name: "check", kind: "ValidatingPolicy" }],
        allowedValues: ["NET_ADMIN"],
        matchConditions: [{ name: "experiments", expression: "object.metadata.name.startsWith('exp-')" }],
      },
    };
    const p = compile(
      vpol({
        validations: [
          {
            expression:
              "object.spec.containers.all(c, c.?securityContext.?capabilities.?add.orValue([]).all(x, x in exceptions.allowedValues))",
          },
        ],
      }),
      { exceptions: [exception] },
    );
    const adds = { securityContext: { capabilities: { add: ["NET_ADMIN"] } } };
    expect(engine.validate(p, { resource: pod("exp-1", adds) }).rules[0]?.status).toBe("pass");
    expect(engine.validate(p, { resource: pod("prod-1", adds) }).rules[0]?.status).toBe("fail");
  });

  it("names the policy, field path and error of an expression that does not compile", () => {
    const result = engine.compile(
      vpol({ validations: [{ expression: "true" }, { expression: "object.spec. == 1" }] }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.path).toBe("spec.validations[1].expression");
    expect(result.issues[0]?.message).toMatch(/syntax error/);
  });

  it("reads cluster data through the context loader", () => {
    const withLoader = createCelEngine({
      contextLoader: {
        kubeResource: (call) =>
          call.verb === "get" && call.resource === "configmaps"
            ? { ok: true, value: { data: { allowed: "nginx:1.25" } } }
            : { ok: false, error: "not found" },
      },
    });
    const compiled = withLoader.compile(
      vpol({
        variables: [{ name: "cm", expression: "resource.Get('v1', 'configmaps', 'platform', 'images')" }],
        validations: [
          { expression: "object.spec.containers.all(c, c.image in variables.cm.data.allowed.split(','))" },
        ],
      }),
    );
    if (!compiled.ok) throw new Error("compile");
    expect(withLoader.validate(compiled.policy, { resource: pod("a") }).rules[0]?.status).toBe("pass");
  });
});

describe("authorizer", () => {
  const policy = vpol({
    validations: [
      {
        expression:
          "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('delete').allowed()",
      },
    ],
  });

  it("asks the loader for decisions about the requester", () => {
    const asked: unknown[] = [];
    const authz = createCelEngine({
      contextLoader: {
        authorize: (check) => {
          asked.push(check);
          return { ok: true, value: { allowed: check.user === "admin" } };
        },
      },
    });
    const compiled = authz.compile(policy);
    if (!compiled.ok) throw new Error("compile");
    const admin = { resource: pod("a"), userInfo: { username: "admin", groups: ["ops"] } };
    expect(authz.validate(compiled.policy, admin).rules[0]?.status).toBe("pass");
    expect(
      authz.validate(compiled.policy, { resource: pod("a"), userInfo: { username: "dev" } }).rules[0]?.status,
    ).toBe("fail");
    expect(asked[0]).toEqual({
      user: "admin",
      groups: ["ops"],
      group: "",
      resource: "pods",
      namespace: "team",
      verb: "delete",
    });
  });

  it("never allows without an authorizer", () => {
    expect(engine.validate(compile(policy), { resource: pod("a") }).rules[0]?.status).toBe("fail");
  });
});

describe("MutatingPolicy", () => {
  const mpol = (mutations: unknown[]): CelPolicy =>
    ({
      apiVersion: "policies.kyverno.io/v1alpha1",
      kind: "MutatingPolicy",
      metadata: { name: "mutate" },
      spec: { matchConstraints: podRules, mutations },
    }) as CelPolicy;

  it("applies apply configurations and JSON patches in order", () => {
    const p = compile(
      mpol([
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'team': 'core'}}}" },
        },
        {
          patchType: "JSONPatch",
          jsonPatch: {
            expression:
              "[JSONPatch{op: 'add', path: '/metadata/labels/owner', value: object.metadata.labels.team + '-owner'}]",
          },
        },
      ]),
    );
    const response = engine.mutate(p, { resource: pod("a") });
    // Upstream's MutatingPolicy result: an unnamed rule passing with `success`, as a ValidatingPolicy's.
    expect(response.rules).toEqual([
      expect.objectContaining({ name: "", status: "pass", message: "success" }),
    ]);
    expect((response.patchedResource as KubeObject).metadata?.labels).toEqual({
      team: "core",
      owner: "core-owner",
    });
    expect(response.patch).toEqual(
      expect.arrayContaining([
        { op: "add", path: "/metadata/labels/team", value: "core" },
        { op: "add", path: "/metadata/labels/owner", value: "core-owner" },
      ]),
    );
  });

  it("merges container lists by name, as server-side apply", () => {
    const p = compile(
      mpol([
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression:
              "Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: 'Always'})}}",
          },
        },
      ]),
    );
    const patched = engine.mutate(p, { resource: pod("a") }).patchedResource as KubeObject;
    expect((patched.spec as { containers: unknown[] }).containers).toEqual([
      { name: "c", image: "nginx:1.25", imagePullPolicy: "Always" },
    ]);
  });
});

describe("GeneratingPolicy, DeletingPolicy and ImageValidatingPolicy", () => {
  it("generates the objects generator.Apply is given, in a result named after the policy", () => {
    const exception: CelPolicyException = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "skip-testing", namespace: "kyverno" },
      spec: {
        policyRefs: [{ name: "gen", kind: "GeneratingPolicy" }],
        matchConditions: [{ name: "testing", expression: "object.metadata.name == 'testing'" }],
      },
    };
    const p = compile(
      {
        apiVersion: "policies.kyverno.io/v1alpha1",
        kind: "GeneratingPolicy",
        metadata: { name: "gen" },
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] },
            ],
          },
          variables: [
            {
              name: "cm",
              expression: "[{'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'defaults'}}]",
            },
          ],
          generate: [{ expression: "generator.Apply(object.metadata.name, variables.cm)" }],
        },
      } as CelPolicy,
      { exceptions: [exception] },
    );
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } };
    const rule = engine.generate(p, { resource: ns }).rules[0];
    // Upstream's report rows (the exceptions guide's GeneratingPolicy reports).
    expect(rule).toMatchObject({ name: "gen", status: "pass", message: "policy evaluated successfully" });
    const testing = { apiVersion: "v1", kind: "Namespace", metadata: { name: "testing" } };
    expect(engine.generate(p, { resource: testing }).rules[0]).toMatchObject({
      name: "gen",
      status: "skip",
      message: "",
      exception: { namespace: "kyverno", name: "skip-testing" },
      properties: { exceptions: "skip-testing" },
    });
    expect(rule?.generated?.map((g) => g.object)).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "defaults", namespace: "team" } },
    ]);
  });

  it("generates the items of a resource.List answer given to generator.Apply", () => {
    const secrets = [
      { apiVersion: "v1", kind: "Secret", metadata: { name: "a", namespace: "default" } },
      { apiVersion: "v1", kind: "Secret", metadata: { name: "b", namespace: "default" } },
    ];
    const p = compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "GeneratingPolicy",
      metadata: { name: "clone-all" },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] },
          ],
        },
        variables: [{ name: "sources", expression: 'resource.List("v1", "secrets", "default")' }],
        generate: [{ expression: "generator.Apply(object.metadata.name, [variables.sources])" }],
      },
    } as CelPolicy);
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } };
    const rule = engine.generate(p, {
      resource: ns,
      contextLoader: {
        kubeResource: () => ({ ok: true, value: { apiVersion: "v1", kind: "SecretList", items: secrets } }),
      },
    }).rules[0];
    expect(rule?.status).toBe("pass");
    expect(rule?.generated?.map((g) => g.object.metadata)).toEqual([
      { name: "a", namespace: "team" },
      { name: "b", namespace: "team" },
    ]);
  });

  it("tells which resources a DeletingPolicy deletes", () => {
    const p = compile({
      apiVersion: "policies.kyverno.io/v1alpha1",
      kind: "DeletingPolicy",
      metadata: { name: "cleanup" },
      spec: {
        schedule: "*/5 * * * *",
        matchConstraints: podRules,
        conditions: [{ name: "temporary", expression: "'temporary' in object.metadata.?labels.orValue({})" }],
      },
    } as CelPolicy);
    expect(engine.evaluateDeletion(p, pod("a", {}, { temporary: "true" })).rules[0]?.status).toBe("pass");
    expect(engine.evaluateDeletion(p, pod("b")).rules[0]?.status).toBe("skip");
  });

  it("reports an ImageValidatingPolicy as an error, never a pass", () => {
    const p = compile({
      apiVersion: "policies.kyverno.io/v1alpha1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "images" },
      spec: { matchConstraints: podRules, validations: [{ expression: "true" }] },
    } as CelPolicy);
    const rule = engine.validate(p, { resource: pod("a") }).rules[0];
    expect(rule?.status).toBe("error");
    expect(rule?.message).toContain("image verification is not implemented");
  });
});

describe("ValidatingAdmissionPolicy with bindings", () => {
  const vap = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "team-label" },
    spec: {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: podRules,
      validations: [{ expression: "object.metadata.?labels.?team.orValue('') == params.data.team" }],
    },
  } as const;
  const binding = (paramRef: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "b" },
      spec: { policyName: "team-label", paramRef, validationActions: ["Audit"], ...extra },
    }) as never;
  const withParams = createCelEngine({
    contextLoader: {
      kubeResource: (call) =>
        call.resource === "configmaps" && call.name === "teams"
          ? { ok: true, value: { apiVersion: "v1", kind: "ConfigMap", data: { team: "core" } } }
          : { ok: false, error: "not found" },
    },
  });
  const compileVap = (bindings: never[]) => {
    const r = withParams.compile(vap as never, { bindings });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    return r.policy;
  };

  it("evaluates with the parameters the binding selects and its validation actions", () => {
    const p = compileVap([binding({ name: "teams", namespace: "platform" })]);
    expect(withParams.validate(p, { resource: pod("a", {}, { team: "core" }) }).rules[0]?.status).toBe(
      "pass",
    );
    const bad = withParams.validate(p, { resource: pod("b", {}, { team: "web" }) }).rules[0];
    expect(bad).toMatchObject({ status: "fail", failureAction: "Audit" });
  });

  it("follows parameterNotFoundAction when the parameters do not exist", () => {
    const deny = compileVap([binding({ name: "missing" })]);
    expect(withParams.validate(deny, { resource: pod("a") }).rules[0]?.status).toBe("fail");
    const allow = compileVap([binding({ name: "missing", parameterNotFoundAction: "Allow" })]);
    expect(withParams.validate(allow, { resource: pod("a") }).rules).toEqual([]);
  });

  it("mutates with a MutatingAdmissionPolicy binding's parameters", () => {
    const map = {
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "team-label" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: podRules,
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: "Object{metadata: Object.metadata{labels: {'team': params.data.team}}}",
            },
          },
        ],
      },
    };
    const b = {
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: "b" },
      spec: { policyName: "team-label", paramRef: { name: "teams", namespace: "platform" } },
    };
    const r = withParams.compile(map as never, { bindings: [b as never] });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const patched = withParams.mutate(r.policy, { resource: pod("a") }).patchedResource as KubeObject;
    expect(patched.metadata?.labels).toEqual({ team: "core" });
  });

  it("only applies to the requests the binding's matchResources select", () => {
    const scoped = binding(
      { name: "teams" },
      { matchResources: { ...podRules, namespaceSelector: { matchLabels: { env: "dev" } } } },
    );
    const p = compileVap([scoped]);
    expect(
      withParams.validate(p, { resource: pod("b", {}, { team: "web" }), namespaceLabels: { env: "prod" } })
        .rules,
    ).toEqual([]);
  });
});

describe("mutate-existing MutatingPolicy", () => {
  const existing: KubeObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "team" },
    data: { mode: "old" },
  };
  const withTargets = createCelEngine({
    contextLoader: {
      kubeResource: (call) =>
        call.verb === "list" && call.resource === "configmaps"
          ? { ok: true, value: { items: [existing as unknown as JsonValue] } }
          : { ok: false, error: "not found" },
    },
  });
  const policy = {
    apiVersion: "policies.kyverno.io/v1alpha1",
    kind: "MutatingPolicy",
    metadata: { name: "refresh" },
    spec: {
      matchConstraints: podRules,
      evaluation: { mutateExisting: { enabled: true } },
      targetMatchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["configmaps"] },
        ],
      },
      targetMatchConditions: [{ name: "settings", expression: "object.metadata.name == 'settings'" }],
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: "Object{data: Object.data{mode: 'new'}}" },
        },
      ],
    },
  } as unknown as CelPolicy;

  it("patches the targets a trigger selects and leaves the trigger alone", () => {
    const compiled = withTargets.compile(policy);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    expect(compiled.policy.mutateExisting).toBe(true);
    expect(withTargets.mutate(compiled.policy, { resource: pod("trigger") }).rules).toEqual([]);
    const rule = withTargets.mutateExisting(compiled.policy, { resource: pod("trigger") }).rules[0];
    expect(rule?.status).toBe("pass");
    expect(rule?.patchedTargets?.map((t) => t.patched)).toEqual([{ ...existing, data: { mode: "new" } }]);
    expect(existing.data).toEqual({ mode: "old" });
  });

  it("answers error, not a silent skip, when nothing can list the targets (admission: work for the background)", () => {
    const bare = createCelEngine();
    const compiled = bare.compile(policy);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    const rule = bare.mutateExisting(compiled.policy, { resource: pod("trigger") }).rules[0];
    expect(rule?.status).toBe("error");
    expect(rule?.message).toContain("no resource loader");
  });

  it("reports a target condition that errs under failurePolicy Fail, and skips the target under Ignore", () => {
    const erring = (failurePolicy: string) =>
      ({
        ...policy,
        spec: {
          ...(policy.spec as object),
          failurePolicy,
          targetMatchConditions: [{ name: "broken", expression: "object.metadata.labels['absent'] == 'x'" }],
        },
      }) as unknown as CelPolicy;
    const fail = withTargets.compile(erring("Fail"));
    const ignore = withTargets.compile(erring("Ignore"));
    if (!fail.ok || !ignore.ok) throw new Error("not compiled");
    const failed = withTargets.mutateExisting(fail.policy, { resource: pod("trigger") }).rules[0];
    expect(failed?.status).toBe("error");
    expect(failed?.message).toContain("matchCondition 'broken'");
    expect(withTargets.mutateExisting(ignore.policy, { resource: pod("trigger") }).rules[0]?.status).toBe(
      "skip",
    );
  });

  it("targets the existing objects the policy matches when targetMatchConstraints is absent", () => {
    const other = pod("other", {}, {});
    const lister = createCelEngine({
      contextLoader: {
        kubeResource: (call) =>
          call.verb === "list" && call.resource === "pods"
            ? { ok: true, value: { items: [pod("trigger"), other] as unknown as JsonValue[] } }
            : { ok: false, error: "not found" },
      },
    });
    const {
      targetMatchConstraints: _t,
      targetMatchConditions: _c,
      ...spec
    } = policy.spec as Record<string, unknown>;
    const same = { ...policy, spec: { ...spec, mutations: [labelled] } } as unknown as CelPolicy;
    const compiled = lister.compile(same);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    const rule = lister.mutateExisting(compiled.policy, { resource: pod("trigger") }).rules[0];
    expect(rule?.patchedTargets?.map((t) => t.target.metadata?.name)).toEqual(["trigger", "other"]);
  });
});

const labelled = {
  patchType: "ApplyConfiguration",
  applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}" },
};

describe("the evaluation budget, as every rule's", () => {
  const now = new Date("2025-01-01T00:00:00Z").getTime();

  it("does not start a policy once the request's deadline has passed: an error, as a classic rule's", () => {
    const p = compile(noPrivileged);
    const late = engine.validate(p, { resource: pod("good"), deadline: now - 1 });
    expect(late.rules).toEqual([
      {
        name: "",
        type: "Validation",
        status: "error",
        message: "evaluation budget exceeded: the request's deadline passed during the rule",
        failureAction: "Enforce",
      },
    ]);
    expect(engine.validate(p, { resource: pod("good"), deadline: now }).rules[0]?.status).toBe("pass");
  });

  it("still gives no result for a request the policy does not match", () => {
    const p = compile(vpol({ matchConditions: [{ name: "never", expression: "false" }], validations: [] }));
    expect(engine.validate(p, { resource: pod("good"), deadline: now - 1 }).rules).toEqual([]);
  });
});
