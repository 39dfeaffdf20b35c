/**
 * The side navigation: dashboard, one entry per source, namespaces, policies and notification
 * targets. Links carry the current filters, so moving between views keeps the selection.
 */
import { NavLink as MantineNavLink, ScrollArea, Text } from "@mantine/core";
import { NavLink, useLocation } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { paths } from "../components/links.ts";
import { filterQueryString } from "../filters/filter-state.ts";
import { useFilters } from "../filters/use-filters.ts";
import { queries } from "../queries/view-queries.ts";

/** One navigation entry, active when the path matches. */
function Entry({ to, label, end, query }: { to: string; label: string; end?: boolean; query: string }) {
  const { pathname } = useLocation();
  const active = end ? pathname === to : pathname === to || pathname.startsWith(`${to}/`);
  return (
    <MantineNavLink
      component={NavLink}
      to={`${to}${query}`}
      label={label}
      active={active}
      aria-current={active ? "page" : undefined}
      variant="light"
    />
  );
}

/** The navigation; `onNavigate` closes the mobile drawer. */
export function NavMenu({ onNavigate }: { onNavigate?: () => void }) {
  const api = useApiClient();
  const sources = useQuery(queries.sources(api));
  const [filters] = useFilters();
  const query = filterQueryString(filters);
  return (
    <ScrollArea component="nav" aria-label="Main" onClick={onNavigate}>
      <Entry to={paths.dashboard()} label="Dashboard" end query={query} />
      <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="md" pb={4}>
        Sources
      </Text>
      {(sources.data ?? []).map((source) => (
        <Entry key={source} to={paths.source(source)} label={source} query={query} />
      ))}
      <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt="md" pb={4}>
        Views
      </Text>
      <Entry to={paths.namespaces()} label="Namespaces" query={query} />
      <Entry to={paths.policies()} label="Policies" query={query} />
      <Entry to={paths.targets()} label="Notification targets" query="" />
    </ScrollArea>
  );
}
