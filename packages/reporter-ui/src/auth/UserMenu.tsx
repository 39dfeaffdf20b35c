/** The header's signed-in user and the sign-out button; nothing when the reporter has no login. */

import type { UserProfile } from "@kyverno-ts/reporter";
import { Button, Group, Text, Tooltip } from "@mantine/core";
import { useEffect, useState } from "react";
import { useApiClient } from "../api/api-context.ts";
import { isAbortError } from "../api/errors.ts";
import { fetchProfile, logoutUrl } from "./session.ts";

/** Shows who is signed in, with a "Sign out" form button. */
export function UserMenu() {
  const api = useApiClient();
  const [profile, setProfile] = useState<UserProfile | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    fetchProfile(api.baseUrl, { signal: abort.signal })
      .then(setProfile)
      .catch((error: unknown) => {
        if (!isAbortError(error)) setProfile(null);
      });
    return () => abort.abort();
  }, [api]);
  if (!profile) return null;
  const detail = [profile.email, ...profile.groups.map((g) => `group ${g}`)].filter(Boolean).join(", ");
  return (
    <Group gap="xs" wrap="nowrap" data-testid="user-menu">
      <Tooltip label={detail || profile.name} disabled={!detail}>
        <Text size="sm" fw={500} className="wide-only" data-testid="user-name">
          {profile.name}
        </Text>
      </Tooltip>
      <form method="post" action={logoutUrl(api.baseUrl)}>
        <Button type="submit" size="xs" variant="default" aria-label={`Sign out ${profile.name}`}>
          Sign out
        </Button>
      </form>
    </Group>
  );
}
