/**
 * The PolicyException generator of a resource page: the Kyverno policies whose rules did not
 * pass for this resource (checked by default), and the ready-made YAML to copy or download.
 */
import type { PolicyResult, Resource } from "@kyverno-ts/reporter";
import { Paper, Text, Title } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { QueryState } from "../components/QueryState.tsx";
import { queries } from "../queries/view-queries.ts";
import { ExceptionEditor } from "./ExceptionEditor.tsx";
import type { ExceptionPolicy } from "./policy-exception.ts";

/** Rules per policy among the results, policies sorted by name. */
function failingPolicies(results: readonly PolicyResult[]): ExceptionPolicy[] {
  const map = new Map<string, Set<string>>();
  for (const r of results) {
    if (r.source.toLowerCase() !== "kyverno") continue;
    const rules = map.get(r.policy) ?? new Set<string>();
    rules.add(r.rule);
    map.set(r.policy, rules);
  }
  return [...map.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([policy, rules]) => ({ policy, rules: [...rules].sort() }));
}

/** The panel for one resource. */
export function ExceptionPanel({ resource }: { resource: Resource }) {
  const api = useApiClient();
  const query = useQuery(queries.exceptionResults(api, resource.id));
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="exception-title">
      <Title order={2} size="h4" id="exception-title" mb="xs">
        PolicyException
      </Title>
      <QueryState query={query} label="failing results">
        {(page) => (
          <>
            {page.count > page.items.length && (
              <Text size="sm" c="dimmed" mb="xs">
                Built from the first {page.items.length} of {page.count} results that did not pass.
              </Text>
            )}
            <ExceptionEditor resource={resource} policies={failingPolicies(page.items)} />
          </>
        )}
      </QueryState>
    </Paper>
  );
}
