/** A page's heading (the only `h1` in the main area) and the document title. */
import { Group, Text, Title } from "@mantine/core";
import { type ReactNode, useEffect } from "react";

/** Sets `document.title` and renders the heading with an optional subtitle and actions. */
export function PageHeader({
  title,
  subtitle,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Policy Reporter`;
  }, [title]);
  return (
    <Group justify="space-between" align="flex-end" mb="md" wrap="wrap">
      <div>
        <Title order={1} size="h2" data-testid="page-title">
          {title}
        </Title>
        {subtitle && (
          <Text c="dimmed" size="sm" component="div">
            {subtitle}
          </Text>
        )}
      </div>
      {children}
    </Group>
  );
}
