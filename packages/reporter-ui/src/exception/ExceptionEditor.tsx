/** Chooses the policies to except and shows the PolicyException YAML with copy and download. */
import type { Resource } from "@kyverno-ts/reporter";
import { Alert, Button, Checkbox, Code, Group, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { downloadText } from "./clipboard.ts";
import { CopyStatus, useCopy } from "./copy-status.tsx";
import { type ExceptionPolicy, exceptionName, policyExceptionYaml } from "./policy-exception.ts";

/** The editor for one resource and the policies it fails (all chosen at first). */
export function ExceptionEditor({ resource, policies }: { resource: Resource; policies: ExceptionPolicy[] }) {
  const [excluded, setExcluded] = useState<ReadonlySet<string>>(new Set());
  const chosen = policies.filter((p) => !excluded.has(p.policy));
  const yaml = policyExceptionYaml({
    resource: {
      kind: resource.kind,
      name: resource.name,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
    },
    policies: chosen,
  });
  const { state: copied, copy, reset } = useCopy(yaml);
  if (policies.length === 0) {
    return <Text c="dimmed">No Kyverno policy fails for this resource: there is nothing to except.</Text>;
  }
  const choose = (values: string[]) => {
    setExcluded(new Set(policies.map((p) => p.policy).filter((policy) => !values.includes(policy))));
    reset();
  };
  return (
    <Stack gap="sm">
      <Text size="sm">
        Exempts this {resource.kind} from the rules that did not pass. Review it, then apply it with{" "}
        <Code>kubectl apply -f</Code>.
      </Text>
      <Checkbox.Group label="Policies to except" value={chosen.map((p) => p.policy)} onChange={choose}>
        <Stack gap={4} mt={4}>
          {policies.map((p) => (
            <Checkbox key={p.policy} value={p.policy} label={`${p.policy} (${p.rules.join(", ")})`} />
          ))}
        </Stack>
      </Checkbox.Group>
      <Code block data-testid="exception-yaml" aria-label="PolicyException YAML" tabIndex={0}>
        {yaml}
      </Code>
      <Group gap="sm">
        <Button onClick={copy} disabled={chosen.length === 0}>
          {copied === "copied" ? "Copied" : "Copy YAML"}
        </Button>
        <Button
          variant="default"
          disabled={chosen.length === 0}
          onClick={() =>
            downloadText(`${exceptionName(resource.kind, resource.name, "exception")}.yaml`, yaml)
          }
        >
          Download YAML
        </Button>
        <CopyStatus state={copied} />
      </Group>
      {chosen.length === 0 && (
        <Alert color="yellow" variant="light">
          Choose at least one policy.
        </Alert>
      )}
    </Stack>
  );
}
