import { describe, expect, it } from "vitest";
import type { ResolvedResource } from "../../cluster-state/kinds.js";
import { defaultKyvernoConfig, parseKyvernoConfig } from "../admission/filters.js";
import {
  buildWebhookConfigurations,
  excludedNamespaces,
  type WebhookBuildInputs,
  webhookSelectors,
} from "./webhook-configs.js";
import type { PolicyWebhookNeeds } from "./webhook-rules.js";

const resolved = new Map<string, ResolvedResource[]>([
  ["Pod", [{ group: "", version: "v1", resource: "pods" }]],
  ["Deployment", [{ group: "apps", version: "v1", resource: "deployments" }]],
  ["StatefulSet", [{ group: "apps", version: "v1", resource: "statefulsets" }]],
  ["ConfigMap", [{ group: "", version: "v1", resource: "configmaps" }]],
  ["Pod/exec", [{ group: "", version: "v1", resource: "pods/exec" }]],
]);

const needs = (over: Partial<PolicyWebhookNeeds> & { key: string }): PolicyWebhookNeeds => ({
  failurePolicy: "Fail",
  timeoutSeconds: undefined,
  validate: [],
  mutate: [],
  ...over,
});

const inputs = (list: PolicyWebhookNeeds[], over: Partial<WebhookBuildInputs> = {}): WebhookBuildInputs => ({
  needs: list,
  resolved,
  endpoint: { service: { namespace: "kyverno", name: "kyverno-svc", port: 443 } },
  caBundle: "Q0E=",
  defaultTimeoutSeconds: 10,
  namespaceSelector: {
    matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }],
  },
  objectSelector: {},
  ...over,
});

const ALL_OPS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;

describe("buildWebhookConfigurations", () => {
  it("keeps the four configurations with no resource webhooks when there is no policy", () => {
    const configs = buildWebhookConfigurations(inputs([]));
    expect(configs.map((c) => [c.kind, c.metadata.name, c.webhooks.map((w) => w.name)])).toEqual([
      ["ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg", []],
      ["MutatingWebhookConfiguration", "kyverno-resource-mutating-webhook-cfg", []],
      [
        "ValidatingWebhookConfiguration",
        "kyverno-policy-validating-webhook-cfg",
        ["validate-policy.kyverno.svc"],
      ],
      [
        "ValidatingWebhookConfiguration",
        "kyverno-exception-validating-webhook-cfg",
        ["validate-exception.kyverno.svc"],
      ],
    ]);
    expect(configs.every((c) => c.metadata.labels["webhook.kyverno.io/managed-by"] === "kyverno")).toBe(true);
    expect(configs[2]?.webhooks[0]?.clientConfig).toEqual({
      service: { namespace: "kyverno", name: "kyverno-svc", port: 443, path: "/policyvalidate" },
      caBundle: "Q0E=",
    });
  });

  it("groups by failure policy, merges rules by group/version/operations, and adds ephemeral containers to Pods", () => {
    const [validating, mutating] = buildWebhookConfigurations(
      inputs([
        needs({
          key: "a",
          validate: [
            { selector: "Pod", operations: ALL_OPS },
            { selector: "Deployment", operations: ALL_OPS },
            { selector: "StatefulSet", operations: ["UPDATE", "CREATE"] },
          ],
        }),
        needs({
          key: "b",
          failurePolicy: "Ignore",
          validate: [{ selector: "ConfigMap", operations: ["CREATE"] }],
        }),
        needs({ key: "c", mutate: [{ selector: "Pod", operations: ["CREATE", "UPDATE"] }] }),
      ]),
    );
    expect(validating?.webhooks.map((w) => [w.name, w.failurePolicy, w.clientConfig.service?.path])).toEqual([
      ["validate.kyverno.svc-fail", "Fail", "/validate/fail"],
      ["validate.kyverno.svc-ignore", "Ignore", "/validate/ignore"],
    ]);
    expect(validating?.webhooks[0]?.rules).toEqual([
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["pods", "pods/ephemeralcontainers"],
        operations: [...ALL_OPS],
        scope: "*",
      },
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        resources: ["statefulsets"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        resources: ["deployments"],
        operations: [...ALL_OPS],
        scope: "*",
      },
    ]);
    expect(validating?.webhooks[0]?.sideEffects).toBe("NoneOnDryRun");
    expect(mutating?.webhooks.map((w) => [w.name, w.reinvocationPolicy, w.rules[0]?.resources])).toEqual([
      ["mutate.kyverno.svc-fail", "IfNeeded", ["pods"]],
    ]);
  });

  it("uses the longest policy timeout of a group, the flag's default otherwise, capped at 30 s", () => {
    const pod = [{ selector: "Pod", operations: ["CREATE"] as const }];
    const timeouts = (list: PolicyWebhookNeeds[]) =>
      buildWebhookConfigurations(inputs(list))[0]?.webhooks.map((w) => w.timeoutSeconds);
    expect(timeouts([needs({ key: "a", validate: pod })])).toEqual([10]);
    expect(timeouts([needs({ key: "a", validate: pod, timeoutSeconds: 3 })])).toEqual([3]);
    expect(
      timeouts([
        needs({ key: "a", validate: pod, timeoutSeconds: 3 }),
        needs({ key: "b", validate: pod, timeoutSeconds: 25 }),
      ]),
    ).toEqual([25]);
    expect(
      timeouts([needs({ key: "a", validate: pod, timeoutSeconds: 3 }), needs({ key: "b", validate: pod })]),
    ).toEqual([10]);
    expect(timeouts([needs({ key: "a", validate: pod, timeoutSeconds: 90 })])).toEqual([30]);
  });

  it("leaves out unresolved kinds and points at a URL outside a cluster", () => {
    const [validating] = buildWebhookConfigurations(
      inputs(
        [
          needs({
            key: "a",
            validate: [
              { selector: "Widget", operations: ["CREATE"] },
              { selector: "Pod/exec", operations: ["CONNECT"] },
            ],
          }),
        ],
        {
          endpoint: { url: "https://127.0.0.1:9443/" },
        },
      ),
    );
    expect(validating?.webhooks[0]?.clientConfig).toEqual({
      url: "https://127.0.0.1:9443/validate/fail",
      caBundle: "Q0E=",
    });
    expect(validating?.webhooks[0]?.rules.map((r) => r.resources)).toEqual([["pods/exec"]]);
  });
});

describe("webhook selectors", () => {
  it("excludes kube-system, Kyverno's namespace and namespaces filtered entirely by resourceFilters", () => {
    expect(excludedNamespaces(defaultKyvernoConfig(), "kyverno")).toEqual([
      "kube-node-lease",
      "kube-public",
      "kube-system",
      "kyverno",
    ]);
    const config = parseKyvernoConfig({
      resourceFilters: "[*/*,team-*,*] [Pod,skipped,*] [*/*,ci,*] [*/*,x,name]",
    }).config;
    expect(excludedNamespaces(config, "kyverno-system")).toEqual(["ci", "kube-system", "kyverno-system"]);
  });

  it("merges the ConfigMap's webhooks setting", () => {
    const { config } = parseKyvernoConfig({
      webhooks: JSON.stringify([
        {
          namespaceSelector: {
            matchExpressions: [{ key: "environment", operator: "In", values: ["prod"] }],
            matchLabels: { managed: "yes" },
          },
          objectSelector: { matchLabels: { checked: "true" } },
        },
      ]),
    });
    expect(webhookSelectors(config, "kyverno")).toEqual({
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "kyverno"] },
          { key: "environment", operator: "In", values: ["prod"] },
        ],
        matchLabels: { managed: "yes" },
      },
      objectSelector: { matchLabels: { checked: "true" } },
    });
  });
});
