/** The configured notification targets: name, type, minimum severity, sources. */
import { Badge, Group, Paper, Stack, Table, Text } from "@mantine/core";
import { useApiClient } from "../api/api-context.ts";
import { useQuery } from "../api/use-query.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { QueryState } from "../components/QueryState.tsx";
import { queries } from "../queries/view-queries.ts";

/** The targets page (`/targets`). */
export function TargetsPage() {
  const api = useApiClient();
  const query = useQuery(queries.targets(api));
  return (
    <Stack gap="md">
      <PageHeader title="Notification targets" subtitle="Where new results are sent" />
      <Paper withBorder p="md">
        <QueryState query={query} label="targets">
          {(targets) =>
            targets.length === 0 ? (
              <Text c="dimmed">No notification target is configured.</Text>
            ) : (
              <Table.ScrollContainer minWidth={560}>
                <Table striped verticalSpacing={6} data-testid="table-targets">
                  <Table.Caption className="table-caption">{`${targets.length} targets`}</Table.Caption>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Name</Table.Th>
                      <Table.Th scope="col">Type</Table.Th>
                      <Table.Th scope="col">Minimum severity</Table.Th>
                      <Table.Th scope="col">Sources</Table.Th>
                      <Table.Th scope="col">Existing results on start-up</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {targets.map((t) => (
                      <Table.Tr key={`${t.type}/${t.name}`}>
                        <Table.Td fw={600}>{t.name}</Table.Td>
                        <Table.Td>
                          <Badge variant="light" color="gray" autoContrast>
                            {t.type}
                          </Badge>
                        </Table.Td>
                        <Table.Td>{t.minimumSeverity || "any"}</Table.Td>
                        <Table.Td>
                          <Group gap={4}>{t.sources.length ? t.sources.join(", ") : "all"}</Group>
                        </Table.Td>
                        <Table.Td>{t.skipExistingOnStartup ? "skipped" : "sent"}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )
          }
        </QueryState>
      </Paper>
    </Stack>
  );
}
