/** Shown for an unknown path. */
import { Anchor, Stack, Text } from "@mantine/core";
import { Link } from "react-router";
import { PageHeader } from "../components/PageHeader.tsx";

/** The not-found page. */
export function NotFoundPage() {
  return (
    <Stack>
      <PageHeader title="Page not found" />
      <Text>
        There is no such page.{" "}
        <Anchor component={Link} to="/">
          Back to the dashboard
        </Anchor>
        .
      </Text>
    </Stack>
  );
}
