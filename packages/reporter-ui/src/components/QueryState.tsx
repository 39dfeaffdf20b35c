/** Shows a query's loading and error states around the view of its data. */
import { Alert, Center, Loader } from "@mantine/core";
import type { ReactNode } from "react";
import type { QueryState as State } from "../api/use-query.ts";

/** Renders `children(data)` once the query has data; a loader before, an alert on error. */
export function QueryState<T>({
  query,
  label,
  children,
}: {
  query: State<T>;
  /** What is loading, for the loader's accessible name and the error title. */
  label: string;
  children: (data: T) => ReactNode;
}) {
  if (query.error) {
    return (
      <Alert color="red" title={`Could not load ${label}`} role="alert">
        {query.error.message}
      </Alert>
    );
  }
  if (query.data === undefined) {
    return (
      <Center p="md">
        <Loader size="sm" aria-label={`Loading ${label}`} />
      </Center>
    );
  }
  return <>{children(query.data)}</>;
}
