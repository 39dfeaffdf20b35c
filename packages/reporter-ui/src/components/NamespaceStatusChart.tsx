/** Status per namespace: the namespaces with the most failures as stacked bars, linking to each. */
import type { ApiFilterQuery } from "@kyverno-ts/reporter";
import { Anchor, Group } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { queries } from "../queries/view-queries.ts";
import { usePalette } from "../theme/palette-context.ts";
import { ChartCard } from "./ChartCard.tsx";
import { namespaceRows, STATUS_KEYS, summarize } from "./charts-data.ts";
import { LazyStackedBars as StackedBars } from "./lazy-charts.tsx";
import { paths } from "./links.ts";
import { QueryState } from "./QueryState.tsx";

/** The chart of the top `limit` namespaces for `filter`. */
export function NamespaceStatusChart({ filter, limit = 12 }: { filter: ApiFilterQuery; limit?: number }) {
  const api = useApiClient();
  const { palette } = usePalette();
  const navigate = useNavigate();
  const query = useQuery(queries.namespaceCounts(api, filter));
  return (
    <QueryState query={query} label="status per namespace">
      {(counts) => {
        const rows = namespaceRows(counts, limit);
        const title =
          counts.size > limit
            ? `Status per namespace (top ${limit} of ${counts.size})`
            : "Status per namespace";
        return (
          <ChartCard
            title={title}
            summary={summarize(rows, STATUS_KEYS)}
            footer={
              <Group justify="flex-end">
                <Anchor component={Link} to={paths.namespaces()} size="sm">
                  All namespaces
                </Anchor>
              </Group>
            }
          >
            <StackedBars
              rows={rows}
              keys={STATUS_KEYS}
              colors={palette.status}
              horizontal
              onSelect={(namespace) => navigate(paths.namespace(namespace))}
            />
          </ChartCard>
        );
      }}
    </QueryState>
  );
}
