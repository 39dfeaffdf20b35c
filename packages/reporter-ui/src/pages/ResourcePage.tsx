/**
 * One resource: what it is, its counts per source and category, its results per policy with
 * their messages, and a ready-made PolicyException for the Kyverno rules it does not pass.
 */
import { useParams } from "react-router";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { QueryState } from "../components/QueryState.tsx";
import { queries } from "../queries/view-queries.ts";
import { ResourceView } from "./ResourceView.tsx";

/** The resource page (`/resources/:id`). */
export function ResourcePage() {
  const id = useParams().id ?? "";
  const api = useApiClient();
  const resource = useQuery(queries.resource(api, id));
  return (
    <QueryState query={resource} label="the resource">
      {(r) => <ResourceView resource={r} />}
    </QueryState>
  );
}
