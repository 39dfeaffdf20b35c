/** Server-side pagination controls of a table: page buttons, page size and the range shown. */
import { Group, Pagination, Select, Text } from "@mantine/core";
import { PAGE_SIZES } from "../filters/filter-state.ts";

/** Props of {@link TablePager}. */
export interface TablePagerProps {
  /** What the table lists, for labels ("resources"). */
  label: string;
  page: number;
  size: number;
  count: number;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
}

/** Pager under a table; hidden page buttons when everything fits on one page. */
export function TablePager({ label, page, size, count, onPage, onSize }: TablePagerProps) {
  const pages = Math.max(1, Math.ceil(count / size));
  const first = count === 0 ? 0 : (page - 1) * size + 1;
  const last = Math.min(count, page * size);
  return (
    <Group justify="space-between" mt="sm" wrap="wrap">
      <Text size="sm" c="dimmed" aria-live="polite">
        {count === 0 ? `No ${label}` : `${first}–${last} of ${count} ${label}`}
      </Text>
      <Group gap="sm">
        {pages > 1 && (
          <nav aria-label={`Pages of ${label}`}>
            <Pagination
              size="sm"
              total={pages}
              value={Math.min(page, pages)}
              onChange={onPage}
              getControlProps={(control) => ({ "aria-label": `${control} page` })}
              getItemProps={(item) => ({
                "aria-label": `Page ${item}`,
                ...(item === page ? { "aria-current": "page" as const } : {}),
              })}
            />
          </nav>
        )}
        <Select
          size="xs"
          w={90}
          aria-label={`${label} per page`}
          data={[...PAGE_SIZES]}
          value={String(size)}
          onChange={(value) => value && onSize(Number(value))}
          allowDeselect={false}
          // No hidden dropdown per table: it would be positioned (a forced layout) on every render.
          comboboxProps={{ keepMounted: false }}
        />
      </Group>
    </Group>
  );
}
