/** Test helpers around the sandbox API server. */
import type { JsonObject } from "@kyverno-ts/api";
import type { QueryEvent } from "../client/types.js";

/** A namespaced custom resource (`example.kyverno-ts.io/v1` Widget) for tests of CRD handling. */
export const WIDGET_CRD: JsonObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.kyverno-ts.io" },
  spec: {
    group: "example.kyverno-ts.io",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        subresources: { status: {} },
      },
    ],
  },
};

/** Polls `check` every 10 ms until it holds; throws after `ms`. */
export async function until(check: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Collects `onQuery` events. */
export function queryLog(): {
  events: QueryEvent[];
  onQuery: (event: QueryEvent) => void;
  count: (op: string) => number;
} {
  const events: QueryEvent[] = [];
  return {
    events,
    onQuery: (event) => events.push(event),
    count: (op) => events.filter((e) => e.operation === op).length,
  };
}
