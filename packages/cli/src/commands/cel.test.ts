import { afterEach, describe, expect, it } from "vitest";
import { cli, tempTree } from "../testing/harness.js";

const VPOL = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: check-labels
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
      - apiGroups: ['']
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  variables:
    - name: allowed
      expression: "resource.Get('v1', 'configmaps', 'platform', 'envs').data.allowed.split(',')"
  validations:
    - message: label 'environment' is required
      expression: "object.metadata.?labels.?environment.orValue('') in variables.allowed"
`;

const PODS = `apiVersion: v1
kind: Pod
metadata:
  name: good
  labels: {environment: prod}
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad-deploy
spec:
  template:
    metadata: {labels: {environment: dev}}
    spec:
      containers: [{name: c, image: nginx}]
`;

const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: envs
  namespace: platform
data:
  allowed: prod,staging
`;

const EXCEPTION = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: allow-bad
  namespace: default
spec:
  policyRefs:
    - name: check-labels
      kind: ValidatingPolicy
  matchConditions:
    - name: bad-only
      expression: "object.metadata.name == 'bad'"
`;

const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: check-labels
policies: [policy.yaml]
resources: [pods.yaml]
context: context.yaml
results:
  - isValidatingPolicy: true
    policy: check-labels
    kind: Pod
    resources: [good]
    result: pass
  - isValidatingPolicy: true
    policy: check-labels
    kind: Pod
    resources: [bad]
    result: fail
  - isValidatingPolicy: true
    policy: check-labels
    kind: Deployment
    resources: [bad-deploy]
    result: fail
`;

const CONTEXT = `apiVersion: cli.kyverno.io/v1alpha1
kind: Context
metadata:
  name: context
spec:
  resources:
${CONFIG_MAP.split("\n")
  .filter((l) => l !== "")
  .map((l, i) => (i === 0 ? `    - ${l}` : `      ${l}`))
  .join("\n")}
`;

describe("CEL policies in apply and test", () => {
  const trees: Array<() => void> = [];
  const tree = (files: Record<string, string>) => {
    const t = tempTree(files);
    trees.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("apply reports a ValidatingPolicy's results under the policy with an empty rule", async () => {
    const dir = tree({ "policy.yaml": VPOL, "pods.yaml": PODS, "cm.yaml": CONFIG_MAP });
    const run = await cli(
      ["apply", "policy.yaml", "-r", "pods.yaml", "--cluster-resource", "cm.yaml", "-o", "json"],
      dir,
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { results: Array<Record<string, unknown>> };
    const byName = Object.fromEntries(
      report.results.map((r) => [(r.resources as Array<{ name: string }>)[0]?.name, r]),
    );
    expect(byName.good).toMatchObject({
      policy: "check-labels",
      rule: "",
      result: "pass",
      source: "KyvernoValidatingPolicy",
    });
    expect(byName.bad).toMatchObject({
      rule: "",
      result: "fail",
      message: "label 'environment' is required",
    });
    expect(byName["bad-deploy"]).toMatchObject({ result: "fail" });
  });

  it("apply -e skips the resources a CEL PolicyException selects", async () => {
    const dir = tree({
      "policy.yaml": VPOL,
      "pods.yaml": PODS,
      "cm.yaml": CONFIG_MAP,
      "exception.yaml": EXCEPTION,
    });
    const run = await cli(
      [
        "apply",
        "policy.yaml",
        "-r",
        "pods.yaml",
        "--cluster-resource",
        "cm.yaml",
        "-e",
        "exception.yaml",
        "-o",
        "json",
      ],
      dir,
    );
    const report = JSON.parse(run.stdout) as {
      results: Array<{ result: string; resources: Array<{ name: string }> }>;
    };
    expect(report.results.find((r) => r.resources[0]?.name === "bad")?.result).toBe("skip");
  });

  it("test judges CEL result lines with the context file's objects", async () => {
    const dir = tree({
      "policy.yaml": VPOL,
      "pods.yaml": PODS,
      "kyverno-test.yaml": TEST,
      "context.yaml": CONTEXT,
    });
    const run = await cli(["test", "."], dir);
    expect(run.stdout).toContain("Test Summary: 3 tests passed and 0 tests failed");
    expect(run.code).toBe(0);
  });

  it("apply tells which resources a DeletingPolicy deletes", async () => {
    const dpol = `apiVersion: policies.kyverno.io/v1alpha1
kind: DeletingPolicy
metadata:
  name: cleanup-bad
spec:
  schedule: "*/5 * * * *"
  matchConstraints:
    resourceRules:
      - apiGroups: ['']
        apiVersions: [v1]
        operations: ['*']
        resources: [pods]
  conditions:
    - name: unlabelled
      expression: "!has(object.metadata.labels)"
`;
    const dir = tree({ "policy.yaml": dpol, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-o", "json"], dir);
    const report = JSON.parse(run.stdout) as {
      results: Array<{ result: string; resources: Array<{ name: string }> }>;
    };
    const result = (name: string) => report.results.find((r) => r.resources[0]?.name === name)?.result;
    expect(result("bad")).toBe("pass");
    expect(result("good")).toBe("skip");
  });

  it("names the file, policy and field of an expression that does not compile", async () => {
    const broken = VPOL.replace("in variables.allowed", "in variables.allowed)");
    const dir = tree({ "policy.yaml": broken, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("policy.yaml");
    expect(run.stderr).toContain("spec.validations[0].expression");
    expect(run.stderr).toContain("check-labels");
  });
});

describe("mocked external data in CEL tests", () => {
  const trees: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("answers http.Get from apiCallResponses and globalContext.Get from globalContextEntries", async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: external
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ['']
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  variables:
    - name: config
      expression: http.Get("https://example.com/config")
    - name: names
      expression: globalContext.Get("deployments", "names")
  validations:
    - expression: variables.config.allowed == true && object.metadata.name in variables.names
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: external
policies: [policy.yaml]
resources: [pods.yaml]
apiCallResponses:
  - method: GET
    url: https://example.com/config
    response:
      statusCode: 200
      body:
        allowed: true
globalContextEntries:
  - name: deployments
    resources:
      - apiVersion: apps/v1
        kind: Deployment
        metadata: {name: good, namespace: default}
    projections:
      - name: names
        path: "[].metadata.name"
results:
  - isValidatingPolicy: true
    policy: external
    kind: Pod
    resources: [good]
    result: pass
  - isValidatingPolicy: true
    policy: external
    kind: Pod
    resources: [bad]
    result: fail
`;
    const t = tempTree({ "policy.yaml": policy, "pods.yaml": PODS, "kyverno-test.yaml": test });
    trees.push(t.cleanup);
    const run = await cli(["test", "."], t.dir);
    expect(run.stdout).toContain("Test Summary: 2 tests passed and 0 tests failed");
  });
});

describe("ValidatingAdmissionPolicy with a binding in kyverno test", () => {
  it("narrows the policy to the namespaces the binding selects (upstream's documented example)", async () => {
    const t = tempTree({
      "policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: 'check-deployment-replicas'
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [deployments]
  validations:
    - expression: object.spec.replicas <= 2
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: 'check-deployment-replicas-binding'
spec:
  policyName: 'check-deployment-replicas'
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions:
        - key: environment
          operator: In
          values: [staging, production]
`,
      "resource.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: testing-deployment-1
  namespace: testing
spec:
  replicas: 4
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: testing-deployment-2
  namespace: testing
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: staging-deployment-1
  namespace: staging
spec:
  replicas: 4
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: production-deployment-1
  namespace: production
spec:
  replicas: 4
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: staging-deployment-2
  namespace: staging
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: production-deployment-2
  namespace: production
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: c, image: busybox}]
`,
      "values.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Value
metadata:
  name: values
namespaceSelector:
  - name: staging
    labels:
      environment: staging
  - name: production
    labels:
      environment: production
  - name: testing
    labels:
      environment: testing
`,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: kyverno-test.yaml
policies:
  - policy.yaml
resources:
  - resource.yaml
variables: values.yaml
results:
  - kind: Deployment
    policy: check-deployment-replicas
    isValidatingAdmissionPolicy: true
    resources:
      - testing-deployment-1
      - testing-deployment-2
    result: skip
  - kind: Deployment
    policy: check-deployment-replicas
    isValidatingAdmissionPolicy: true
    resources:
      - staging-deployment-1
      - production-deployment-1
    result: fail
  - kind: Deployment
    policy: check-deployment-replicas
    isValidatingAdmissionPolicy: true
    resources:
      - staging-deployment-2
      - production-deployment-2
    result: pass
`,
    });
    try {
      const run = await cli(["test", "."], t.dir);
      expect(run.stdout).toContain("Test Summary: 6 tests passed and 0 tests failed");
      expect(run.stdout).toMatch(/testing-deployment-1 +│ Pass +│ Excluded/);
    } finally {
      t.cleanup();
    }
  });
});

describe("apply --json and --parameter-resource", () => {
  it("evaluates JSON-mode ValidatingPolicies on JSON payloads", async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: no-public
spec:
  evaluation:
    mode: JSON
  matchConditions:
    - name: is-plan
      expression: has(object.planned_values)
  validations:
    - expression: object.planned_values.public == false
      message: must not be public
`;
    const t = tempTree({ "policy.yaml": policy, "plan.json": '{"planned_values": {"public": true}}' });
    try {
      const run = await cli(["apply", "policy.yaml", "--json", "plan.json"], t.dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("must not be public");
    } finally {
      t.cleanup();
    }
  });

  it("reads a binding's parameters from --parameter-resource", async () => {
    const vap = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [deployments]
  validations:
    - expression: object.spec.replicas <= int(params.data.max)
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default}
`;
    const params = `apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: default}
data: {max: "3"}
`;
    const deploy = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default}
spec:
  replicas: ${replicas}
  template: {spec: {containers: [{name: c, image: nginx}]}}
`;
    const t = tempTree({
      "policy.yaml": vap,
      "params.yaml": params,
      "deploys.yaml": `${deploy("small", 2)}---\n${deploy("big", 5)}`,
    });
    try {
      const run = await cli(
        ["apply", "policy.yaml", "-r", "deploys.yaml", "--parameter-resource", "params.yaml", "-o", "json"],
        t.dir,
      );
      const report = JSON.parse(run.stdout) as {
        results: Array<{ result: string; resources: Array<{ name: string }> }>;
      };
      const result = (name: string) => report.results.find((r) => r.resources[0]?.name === name)?.result;
      expect(result("small")).toBe("pass");
      expect(result("big")).toBe("fail");
    } finally {
      t.cleanup();
    }
  });
});
