import { describe, expect, it } from "vitest";
import { decodeBody } from "./body.js";
import {
  decodeDeleteOptionsProtobuf,
  decodeProtobuf,
  isProtobufEnvelope,
  PROTOBUF_KINDS,
} from "./protobuf.js";
import { ApiError } from "./status.js";

// Request bodies kubectl 1.32 sent, and what `--dry-run=client -o json` prints for the same command.
/** `kubectl create deployment web2 -n t --image nginx --image busybox:1.36 --replicas 3 --port 8080` */
const DEPLOYMENT = Buffer.from(
  "azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EuwBCiIKBHdlYjISABoBdCIAKgAyADgAQgBaCwoDYXBwEgR3ZWIyErcBCAMSDQoLCgNhcHAS" +
    "BHdlYjIamwEKHQoAEgAaACIAKgAyADgAQgBaCwoDYXBwEgR3ZWIyEnoSLwoFbmdpbngSBW5naW54KgAyCwoAEAAYkD8iACoAQgBqAHIAgAEA" +
    "iAEAkAEAogEAEisKB2J1c3lib3gSDGJ1c3lib3g6MS4zNioAQgBqAHIAgAEAiAEAkAEAogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIB" +
    "ACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA",
  "base64",
);
const DEPLOYMENT_JSON = {
  kind: "Deployment",
  apiVersion: "apps/v1",
  metadata: { name: "web2", namespace: "t", creationTimestamp: null, labels: { app: "web2" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web2" } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: "web2" } },
      spec: {
        containers: [
          { name: "nginx", image: "nginx", ports: [{ containerPort: 8080 }], resources: {} },
          { name: "busybox", image: "busybox:1.36", resources: {} },
        ],
      },
    },
    strategy: {},
  },
  status: {},
};
/** `kubectl create quota q -n t --hard cpu=1,memory=1Gi,pods=10,services.loadbalancers=2 --scopes BestEffort` */
const QUOTA = Buffer.from(
  "azhzAAoTCgJ2MRINUmVzb3VyY2VRdW90YRJuChIKAXESABoBdCIAKgAyADgAQgASVgoKCgNjcHUSAwoBMQoPCgZtZW1vcnkSBQoDMUdpCgwK" +
    "BHBvZHMSBAoCMTAKHQoWc2VydmljZXMubG9hZGJhbGFuY2VycxIDCgEyEgpCZXN0RWZmb3J0GgAaACIA",
  "base64",
);
/** `kubectl create ingress ing -n t --class nginx --rule foo.com/bar*=svc:8080,tls=secret1
 *  --rule /path=svc2:http --default-backend defsvc:80 --annotation a=b` */
const INGRESS = Buffer.from(
  "azhzAAofChRuZXR3b3JraW5nLms4cy5pby92MRIHSW5ncmVzcxKtAQocCgNpbmcSABoBdCIAKgAyADgAQgBiBgoBYRIBYhKIAQoQIg4KBmRl" +
    "ZnN2YxIECgAQUBISCgdmb28uY29tEgdzZWNyZXQxGi0KB2Zvby5jb20SIgogCh4KBC9iYXISDiIMCgNzdmMSBQoAEJA/GgZQcmVmaXgaKgoA" +
    "EiYKJAoiCgUvcGF0aBISIhAKBHN2YzISCAoEaHR0cBAAGgVFeGFjdCIFbmdpbngaAgoAGgAiAA==",
  "base64",
);

function ld(num: number, ...content: Array<Buffer | string>): Buffer {
  const body = Buffer.concat(content.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
  if (body.length > 127) throw new Error("test helper: short fields only");
  return Buffer.concat([Buffer.from([(num << 3) | 2, body.length]), body]);
}
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  Buffer.concat([Buffer.from("k8s\0"), ld(1, ld(1, apiVersion), ld(2, kind)), ld(2, raw)]);

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("protobuf request bodies", () => {
  it("decodes what kubectl sends into what kubectl's dry run prints", () => {
    expect(isProtobufEnvelope(DEPLOYMENT)).toBe(true);
    expect(isProtobufEnvelope(Buffer.from("{}"))).toBe(false);
    expect(decodeProtobuf(DEPLOYMENT)).toEqual(DEPLOYMENT_JSON);
    expect(decodeProtobuf(QUOTA)).toEqual({
      kind: "ResourceQuota",
      apiVersion: "v1",
      metadata: { name: "q", namespace: "t", creationTimestamp: null },
      spec: {
        hard: { cpu: "1", memory: "1Gi", pods: "10", "services.loadbalancers": "2" },
        scopes: ["BestEffort"],
      },
      status: {},
    });
    expect(decodeProtobuf(INGRESS)).toEqual({
      kind: "Ingress",
      apiVersion: "networking.k8s.io/v1",
      metadata: { name: "ing", namespace: "t", creationTimestamp: null, annotations: { a: "b" } },
      spec: {
        ingressClassName: "nginx",
        defaultBackend: { service: { name: "defsvc", port: { number: 80 } } },
        tls: [{ hosts: ["foo.com"], secretName: "secret1" }],
        rules: [
          {
            host: "foo.com",
            http: {
              paths: [
                {
                  path: "/bar",
                  pathType: "Prefix",
                  backend: { service: { name: "svc", port: { number: 8080 } } },
                },
              ],
            },
          },
          {
            http: {
              paths: [
                {
                  path: "/path",
                  pathType: "Exact",
                  backend: { service: { name: "svc2", port: { name: "http" } } },
                },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: {} },
    });
  });

  it("covers every kind kubectl's typed generators create, and its auth commands' requests", () => {
    expect([...PROTOBUF_KINDS].sort()).toEqual([
      "apps/v1/Deployment",
      "authentication.k8s.io/v1/SelfSubjectReview",
      "authentication.k8s.io/v1/TokenRequest",
      "authentication.k8s.io/v1/TokenReview",
      "authorization.k8s.io/v1/LocalSubjectAccessReview",
      "authorization.k8s.io/v1/SelfSubjectAccessReview",
      "authorization.k8s.io/v1/SelfSubjectRulesReview",
      "authorization.k8s.io/v1/SubjectAccessReview",
      "batch/v1/CronJob",
      "batch/v1/Job",
      "certificates.k8s.io/v1/CertificateSigningRequest",
      "networking.k8s.io/v1/Ingress",
      "policy/v1/Eviction",
      "policy/v1/PodDisruptionBudget",
      "rbac.authorization.k8s.io/v1/ClusterRole",
      "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
      "rbac.authorization.k8s.io/v1/Role",
      "rbac.authorization.k8s.io/v1/RoleBinding",
      "scheduling.k8s.io/v1/PriorityClass",
      "v1/ConfigMap",
      "v1/Namespace",
      "v1/Pod",
      "v1/ResourceQuota",
      "v1/Secret",
      "v1/Service",
      "v1/ServiceAccount",
    ]);
  });

  it("leaves kinds without a schema to the caller (415)", () => {
    expect(decodeProtobuf(envelope("example.com/v1", "Widget", ld(1, ld(1, "w"))))).toBeUndefined();
    expect(decodeProtobuf(envelope("apps/v1", "ReplicaSet", Buffer.alloc(0)))).toBeUndefined();
    const unsupported = apiError(() =>
      decodeBody(
        envelope("example.com/v1", "Widget", Buffer.alloc(0)),
        "application/vnd.kubernetes.protobuf",
        "Widget",
      ),
    );
    expect(unsupported.code).toBe(415);
  });

  it("answers a malformed body with a 400 worded as kube-apiserver's", () => {
    const truncatedObject = envelope("v1", "ConfigMap", Buffer.from([0x0a, 0x05, 0x0a, 0x01]));
    const inner = apiError(() => decodeProtobuf(truncatedObject, "ConfigMap"));
    expect([inner.code, inner.reason]).toEqual([400, "BadRequest"]);
    expect(inner.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF');
    const wrongWire = envelope("v1", "ConfigMap", Buffer.from([0x08, 0x01]));
    expect(apiError(() => decodeProtobuf(wrongWire)).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: proto: wrong wireType = 0 for field metadata',
    );
    const outer = apiError(() => decodeProtobuf(DEPLOYMENT.subarray(0, 40), "Deployment"));
    expect(outer.message).toBe(
      "the object provided is unrecognized (must be of type Deployment): unexpected EOF",
    );
    expect(apiError(() => decodeProtobuf(Buffer.from("k8s\0"))).message).toBe(
      "the object provided is unrecognized: empty body",
    );
    const viaBody = apiError(() =>
      decodeBody(DEPLOYMENT.subarray(0, 100), "application/vnd.kubernetes.protobuf", "Deployment"),
    );
    expect(viaBody.code).toBe(400);
  });

  it("never crashes or hangs on truncated or corrupted bodies", () => {
    const outcome = (body: Buffer): string => {
      try {
        const decoded = decodeProtobuf(body, "Deployment");
        return decoded === undefined ? "unsupported" : "decoded";
      } catch (e) {
        if (e instanceof ApiError && e.code === 400) return "400";
        throw e;
      }
    };
    for (let cut = 4; cut < DEPLOYMENT.length; cut++)
      expect(["decoded", "400"]).toContain(outcome(DEPLOYMENT.subarray(0, cut)));
    expect(outcome(DEPLOYMENT.subarray(0, DEPLOYMENT.length - 1))).toBe("400");
    let seed = 42;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const body = Buffer.from(DEPLOYMENT);
      for (let flips = 1 + random(3); flips > 0; flips--) body[4 + random(body.length - 4)] = random(256);
      seen.add(outcome(body));
    }
    expect(seen).toContain("400");
    expect(seen).toContain("decoded");
  });
});

/** A length-delimited protobuf field (wire type 2) with a one-byte length. */
function lenField(num: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(num << 3) | 2, value.length]), value]);
}

describe("protobuf DeleteOptions bodies", () => {
  it("decodes the DeleteOptions client-go sends with a DELETE (Helm's release Secret purge)", () => {
    const typeMeta = Buffer.concat([
      lenField(1, Buffer.from("v1")),
      lenField(2, Buffer.from("DeleteOptions")),
    ]);
    const options = Buffer.concat([
      Buffer.from([0x08, 30]), // gracePeriodSeconds: 30
      lenField(2, lenField(1, Buffer.from("uid-1"))), // preconditions.uid
      lenField(4, Buffer.from("Foreground")),
      lenField(5, Buffer.from("All")),
    ]);
    const body = Buffer.concat([Buffer.from("k8s\0", "latin1"), lenField(1, typeMeta), lenField(2, options)]);
    expect(isProtobufEnvelope(body)).toBe(true);
    expect(decodeDeleteOptionsProtobuf(body)).toEqual({
      kind: "DeleteOptions",
      gracePeriodSeconds: 30,
      preconditions: { uid: "uid-1" },
      propagationPolicy: "Foreground",
      dryRun: ["All"],
    });
  });

  it("answers a truncated DeleteOptions body with a 400", () => {
    const body = Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x12, 0x20, 0x22])]);
    expect(() => decodeDeleteOptionsProtobuf(body)).toThrow(ApiError);
  });
});
