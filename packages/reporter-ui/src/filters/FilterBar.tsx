/**
 * The filter bar: one multi-select per filter the page supports, and the free-text search.
 * Every change is written to the URL (see `use-filters`), so the view can be shared.
 */
import { Button, Group, MultiSelect, Paper, SimpleGrid } from "@mantine/core";
import { useFilterOptions, useOptionsDemand } from "./filter-options.ts";
import { FILTER_LIST_KEYS, type FilterListKey, type Filters } from "./filter-state.ts";
import { SearchInput } from "./SearchInput.tsx";
import { useFilters } from "./use-filters.ts";

const LABELS: Record<FilterListKey, string> = {
  sources: "Sources",
  categories: "Categories",
  namespaces: "Namespaces",
  kinds: "Kinds",
  status: "Status",
  severities: "Severities",
};

/** Props of {@link FilterBar}. */
export interface FilterBarProps {
  /** The lists to offer (default all); a page that fixes one (a namespace page) leaves it out. */
  lists?: readonly FilterListKey[];
  /** Whether to offer the free-text search (default true). */
  search?: boolean;
}

/** The filter bar of a page. */
export function FilterBar({ lists = FILTER_LIST_KEYS, search = true }: FilterBarProps) {
  const [filters, setFilters] = useFilters();
  const [wanted, want] = useOptionsDemand();
  const { options, loading } = useFilterOptions(wanted);
  const active = lists.some((key) => filters[key].length > 0) || (search && filters.search !== "");
  return (
    <Paper
      withBorder
      p="sm"
      component="form"
      role="search"
      aria-label="Filters"
      onSubmit={(e) => e.preventDefault()}
      onFocus={want}
      onPointerEnter={want}
    >
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="xs">
        {lists.map((key) => (
          <MultiSelect
            key={key}
            label={LABELS[key]}
            placeholder={filters[key].length ? undefined : "All"}
            data={[...new Set([...options[key], ...filters[key]])]}
            value={filters[key]}
            onChange={(values) => setFilters({ [key]: values })}
            searchable
            clearable
            hidePickedOptions
            nothingFoundMessage={loading && options[key].length === 0 ? "Loading…" : undefined}
            comboboxProps={{ withinPortal: true, keepMounted: false }}
            data-filter={key}
          />
        ))}
        {search && <SearchInput value={filters.search} onChange={(value) => setFilters({ search: value })} />}
      </SimpleGrid>
      {active && (
        <Group justify="flex-end" mt="xs">
          <Button variant="subtle" size="xs" onClick={() => setFilters(cleared(lists, search))}>
            Clear filters
          </Button>
        </Group>
      )}
    </Paper>
  );
}

function cleared(lists: readonly FilterListKey[], search: boolean): Partial<Filters> {
  const out: Partial<Filters> = search ? { search: "" } : {};
  for (const key of lists) out[key] = [];
  return out;
}
