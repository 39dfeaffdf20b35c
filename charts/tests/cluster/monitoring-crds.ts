/**
 * prometheus-operator's ServiceMonitor and PrometheusRule kinds, as minimal CRDs (names, scope and
 * versions as upstream's; the schema keeps every field): the charts render them only once the
 * cluster serves them, and the e2e checks Helm installs and removes them.
 */
const crd = (kind: string, plural: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.monitoring.coreos.com` },
  spec: {
    group: "monitoring.coreos.com",
    scope: "Namespaced",
    names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        },
      },
    ],
  },
});

/** The two CRDs, one JSON document each (for `kubectl create -f -`). */
export const MONITORING_CRDS = [
  crd("ServiceMonitor", "servicemonitors"),
  crd("PrometheusRule", "prometheusrules"),
]
  .map((o) => JSON.stringify(o))
  .join("\n");
