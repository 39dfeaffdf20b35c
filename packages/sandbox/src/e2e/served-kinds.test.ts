/**
 * The kinds and defaults upstream Kyverno's end-to-end tests touch, through the real kubectl:
 * ValidatingAdmissionPolicy and its bindings, APIService, CertificateSigningRequest (with
 * `kubectl certificate approve`), SubjectAccessReview, Kyverno's cleanup policies and ephemeral
 * reports (from upstream's CRDs), and CRDs defaulted as kube-apiserver defaults them.
 */
import { join } from "node:path";
import { KYVERNO_CRDS, kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping the served kinds e2e: ${NO_KUBECTL}`);

const VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-limit}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-limit-binding}
spec:
  policyName: replicas-limit
  validationActions: [Deny]
`;

const API_SERVICE = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system}
`;

// A PKCS#10 request is opaque to the API server's storage; kube-apiserver parses it, the sandbox keeps it.
const CSR = `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec:
  request: ${Buffer.from("-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n").toString("base64")}
  signerName: kubernetes.io/kube-apiserver-client
  usages: [client auth]
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

describe.skipIf(!hasKubectl)("kinds upstream's tests touch, through kubectl", { timeout: 30_000 }, () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [
        "kyverno/kyverno.io_cleanuppolicies.yaml",
        "kyverno/kyverno.io_clustercleanuppolicies.yaml",
        "reports/reports.kyverno.io_ephemeralreports.yaml",
        "reports/reports.kyverno.io_clusterephemeralreports.yaml",
      ].map((file) => join(KYVERNO_CRDS, file)),
    });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("serves ValidatingAdmissionPolicies and their bindings", async () => {
    const applied = await kubectl(["apply", "-f", "-"], VAP);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toContain(
      "validatingadmissionpolicy.admissionregistration.k8s.io/replicas-limit created",
    );
    const bound = await kubectl([
      "get",
      "validatingadmissionpolicybinding",
      "replicas-limit-binding",
      "-o",
      "jsonpath={.spec.policyName}",
    ]);
    expect(bound.stdout).toBe("replicas-limit");
  });

  it("serves APIServices (cluster-scoped)", async () => {
    expect((await kubectl(["apply", "-f", "-"], API_SERVICE)).code).toBe(0);
    const got = await kubectl([
      "get",
      "apiservice",
      "v1beta1.metrics.k8s.io",
      "-o",
      "jsonpath={.spec.group}",
    ]);
    expect(got.stdout).toBe("metrics.k8s.io");
    const namespaced = await kubectl(["api-resources", "--namespaced=false", "-o", "name"]);
    expect(namespaced.stdout.split("\n")).toContain("apiservices.apiregistration.k8s.io");
  });

  it("serves CertificateSigningRequests and the approval subresource of kubectl certificate approve", async () => {
    expect((await kubectl(["apply", "-f", "-"], CSR)).code).toBe(0);
    const approved = await kubectl(["certificate", "approve", "alice"]);
    expect(approved.stderr).toBe("");
    expect(approved.stdout).toContain("certificatesigningrequest.certificates.k8s.io/alice approved");
    const condition = await kubectl([
      "get",
      "csr",
      "alice",
      "-o",
      "jsonpath={.status.conditions[0].type}/{.spec.signerName}",
    ]);
    expect(condition.stdout).toBe("Approved/kubernetes.io/kube-apiserver-client");
  });

  it("defaults a CRD's singular and listKind names and its conversion strategy as kube-apiserver", async () => {
    expect((await kubectl(["apply", "-f", "-"], CRD)).code).toBe(0);
    const names = await kubectl([
      "get",
      "crd",
      "widgets.example.com",
      "-o",
      "jsonpath={.spec.names.singular}/{.spec.names.listKind}/{.spec.conversion.strategy}/{.status.acceptedNames.listKind}",
    ]);
    expect(names.stdout).toBe("widget/WidgetList/None/WidgetList");
  });

  it("serves Kyverno's CleanupPolicy, ClusterCleanupPolicy and EphemeralReport from upstream's CRDs", async () => {
    const manifests = `apiVersion: kyverno.io/v2
kind: ClusterCleanupPolicy
metadata: {name: old-pods}
spec:
  schedule: "*/5 * * * *"
  match: {any: [{resources: {kinds: [Pod]}}]}
---
apiVersion: kyverno.io/v2
kind: CleanupPolicy
metadata: {name: old-cms, namespace: default}
spec:
  schedule: "0 0 * * *"
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
---
apiVersion: reports.kyverno.io/v1
kind: EphemeralReport
metadata:
  name: 5e1c2a3b-0000-4000-8000-000000000001
  namespace: default
  labels: {audit.kyverno.io/resource.uid: 5e1c2a3b-0000-4000-8000-000000000002}
spec:
  owner: {apiVersion: v1, kind: Pod, name: web, uid: 5e1c2a3b-0000-4000-8000-000000000002}
  results: []
`;
    const applied = await kubectl(["apply", "-f", "-"], manifests);
    expect(applied.stderr).toBe("");
    expect(applied.stdout.split("\n").filter(Boolean)).toEqual([
      "clustercleanuppolicy.kyverno.io/old-pods created",
      "cleanuppolicy.kyverno.io/old-cms created",
      "ephemeralreport.reports.kyverno.io/5e1c2a3b-0000-4000-8000-000000000001 created",
    ]);
    const listed = await kubectl(["get", "ccleanpol,cleanpol,ephemeralreports", "-A", "-o", "name"]);
    expect(listed.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "cleanuppolicy.kyverno.io/old-cms",
      "clustercleanuppolicy.kyverno.io/old-pods",
      "ephemeralreport.reports.kyverno.io/5e1c2a3b-0000-4000-8000-000000000001",
    ]);
  });

  it("answers a SubjectAccessReview for another user (kubectl create -o json)", async () => {
    const review = `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: jane
  groups: [system:authenticated]
  resourceAttributes: {verb: delete, resource: pods, namespace: default}
`;
    const created = await kubectl(["create", "-f", "-", "-o", "json"], review);
    expect(created.stderr).toBe("");
    expect(JSON.parse(created.stdout).status).toEqual({ allowed: false });
    const admin = await kubectl(
      ["create", "-f", "-", "-o", "jsonpath={.status.allowed}"],
      review.replace("user: jane", "user: root").replace("[system:authenticated]", "[system:masters]"),
    );
    expect(admin.stdout).toBe("true");
  });
});
