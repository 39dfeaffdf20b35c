/** What an empty list shows instead of a table with headers only. */
import { Text } from "@mantine/core";

/** "No results match the filters." (or the given text). */
export function NoResults({ what, testId }: { what: string; testId?: string }) {
  return (
    <Text c="dimmed" size="sm" py="sm" data-testid={testId}>
      No {what} match the filters.
    </Text>
  );
}
