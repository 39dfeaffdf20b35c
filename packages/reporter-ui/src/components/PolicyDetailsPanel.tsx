/**
 * A Kyverno policy's details on its page: title, description, category, severity, settings,
 * rules and its YAML with a copy button. They come from the policies the reporter watches in the
 * cluster; when it watches none, or not this one, the panel says so and the page shows results only.
 */
import type { ApiSeverity, PolicyDetails } from "@kyverno-ts/reporter";
import { Badge, Button, Code, Group, Paper, ScrollArea, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { useApiClient } from "../api/api-context.ts";
import { isApiRequestError } from "../api/errors.ts";
import { useQuery } from "../api/use-query.ts";
import { CopyStatus, useCopy } from "../exception/copy-status.tsx";
import { queries } from "../queries/view-queries.ts";
import { QueryState } from "./QueryState.tsx";
import { SeverityBadge } from "./SeverityBadge.tsx";

const SEVERITIES: readonly string[] = ["info", "low", "medium", "high", "critical"];

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm" fw={700}>
        {label}:
      </Text>
      {children}
    </Group>
  );
}

function PolicyYaml({ yaml, truncated }: { yaml: string; truncated: boolean }) {
  const { state: copied, copy } = useCopy(yaml);
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3} size="h5">
          YAML
        </Title>
        <Group gap="sm">
          <CopyStatus state={copied} />
          <Button size="xs" onClick={copy}>
            {copied === "copied" ? "Copied" : "Copy YAML"}
          </Button>
        </Group>
      </Group>
      <ScrollArea.Autosize mah={480} type="auto">
        <Code block data-testid="policy-yaml" aria-label="Policy YAML" tabIndex={0}>
          {yaml}
        </Code>
      </ScrollArea.Autosize>
      {truncated && (
        <Text size="xs" c="dimmed">
          The YAML is cut: the policy is larger than the reporter keeps.
        </Text>
      )}
    </Stack>
  );
}

function DetailsView({ details }: { details: PolicyDetails }) {
  const severity = details.severity?.toLowerCase();
  return (
    <Stack gap="sm">
      {details.title !== details.name && <Text fw={700}>{details.title}</Text>}
      {details.description ? (
        <Text size="sm" data-testid="policy-description" style={{ whiteSpace: "pre-line" }}>
          {details.description}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          The policy has no description.
        </Text>
      )}
      <Group gap="lg" wrap="wrap">
        <Field label="Kind">
          <Text size="sm">{details.kind}</Text>
        </Field>
        <Field label="Category">
          <Text size="sm" data-testid="policy-category">
            {details.category ?? "—"}
          </Text>
        </Field>
        <Field label="Severity">
          {severity && SEVERITIES.includes(severity) ? (
            <SeverityBadge severity={severity as ApiSeverity} />
          ) : (
            <Text size="sm">{details.severity ?? "—"}</Text>
          )}
        </Field>
        <Field label="Failure action">
          <Text size="sm">{details.failureActions.join(", ") || details.validationFailureAction}</Text>
        </Field>
        <Field label="Background">
          <Text size="sm">{details.background ? "yes" : "no"}</Text>
        </Field>
        {details.engine.subjects.length > 0 && (
          <Field label="Subjects">
            <Text size="sm">{details.engine.subjects.join(", ")}</Text>
          </Field>
        )}
      </Group>
      {details.rules.length > 0 && (
        <Group gap={6} wrap="wrap" aria-label="Rules">
          <Text size="sm" fw={700}>
            Rules:
          </Text>
          {details.rules.map((rule) => (
            <Badge key={rule.name} variant="outline" color="gray" autoContrast tt="none">
              {rule.name} · {rule.type}
            </Badge>
          ))}
        </Group>
      )}
      <PolicyYaml yaml={details.code.content} truncated={details.code.truncated} />
    </Stack>
  );
}

/** Why there are no details, from the API's 404 code; undefined for other errors. */
function missing(error: Error | undefined, policy: string): string | undefined {
  if (!isApiRequestError(error) || error.status !== 404) return undefined;
  if (error.code === "POLICY_DETAILS_UNAVAILABLE")
    return "Policy details are not available: this reporter does not watch Kyverno policies (it runs outside a cluster, or the cluster serves no Kyverno policy CRDs). The results below come from the policy reports.";
  return `No ClusterPolicy or Policy named ${policy} is in the cluster (it may have been deleted); only its results are shown.`;
}

/** The details section of a policy page; only Kyverno policies have details. */
export function PolicyDetailsPanel({ source, policy }: { source: string; policy: string }) {
  const api = useApiClient();
  const kyverno = source.toLowerCase() === "kyverno";
  const query = useQuery(kyverno ? queries.policyDetails(api, policy) : undefined);
  const reason = kyverno
    ? missing(query.error, policy)
    : `Policy details come from Kyverno policies; ${source} reports only results.`;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="policy-details">
      <Title order={2} size="h4" id="policy-details" mb="xs">
        Policy
      </Title>
      {reason !== undefined ? (
        <Text size="sm" c="dimmed" data-testid="policy-details-missing">
          {reason}
        </Text>
      ) : (
        <QueryState query={query} label="the policy details">
          {(details) => <DetailsView details={details} />}
        </QueryState>
      )}
    </Paper>
  );
}
