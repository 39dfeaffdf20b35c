/**
 * The kinds and defaults upstream Kyverno's end-to-end tests touch, through the real kubectl:
 * ValidatingAdmissionPolicy and its bindings, APIService, CertificateSigningRequest (with
 * `kubectl certificate approve`), and CRDs defaulted as kube-apiserver defaults them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";
import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "./kubectl.js";

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
    sandbox = await startSandbox({});
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
});
