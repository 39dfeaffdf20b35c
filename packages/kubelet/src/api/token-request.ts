/** TokenRequest (`POST …/serviceaccounts/<name>/token`), which the generic client does not speak. */
import { request } from "node:https";

/** Where the API server is and how the kubelet authenticates to it. */
export interface ApiServerAccess {
  /** `https://host:port`. */
  url: string;
  caCertPem: string;
  /** Bearer token of a user allowed to create tokens for every ServiceAccount. */
  token: string;
}

/** A token issued for a Pod's ServiceAccount. */
export interface IssuedToken {
  token: string;
  expirationTimestamp: string;
}

/** Asks the API server for a token of `namespace/serviceAccount` bound to the Pod. */
export function requestServiceAccountToken(
  access: ApiServerAccess,
  spec: {
    namespace: string;
    serviceAccount: string;
    pod: { name: string; uid: string };
    expirationSeconds: number;
    audiences: string[];
  },
): Promise<IssuedToken> {
  const body = JSON.stringify({
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: {
      audiences: spec.audiences,
      expirationSeconds: spec.expirationSeconds,
      boundObjectRef: { kind: "Pod", apiVersion: "v1", name: spec.pod.name, uid: spec.pod.uid },
    },
  });
  const url = new URL(
    `/api/v1/namespaces/${encodeURIComponent(spec.namespace)}/serviceaccounts/${encodeURIComponent(spec.serviceAccount)}/token`,
    access.url,
  );
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        ca: access.caCertPem,
        headers: {
          Authorization: `Bearer ${access.token}`,
          "Content-Type": "application/json",
          Accept: "application/json",
        },
        timeout: 10000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 201 && res.statusCode !== 200) {
            reject(
              new Error(
                `TokenRequest for ${spec.namespace}/${spec.serviceAccount}: ${res.statusCode} ${text}`,
              ),
            );
            return;
          }
          const status = (JSON.parse(text) as { status?: IssuedToken }).status;
          if (status?.token === undefined) reject(new Error(`TokenRequest: no token in ${text}`));
          else resolve(status);
        });
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("TokenRequest timed out")));
    req.end(body);
  });
}
