/** The page frame: a skip link, the header (title, theme controls), the navigation and the main area. */
import { Anchor, AppShell, Burger, Group, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useEffect, useRef } from "react";
import { Link, Outlet, useLocation } from "react-router";
import { UserMenu } from "../auth/UserMenu.tsx";
import { ThemeControls } from "../theme/ThemeControls.tsx";
import { NavMenu } from "./NavMenu.tsx";

/** The frame around every page. */
export function Shell() {
  const [opened, { toggle, close }] = useDisclosure();
  const main = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // Move focus to the new page's content on navigation, as a page load would.
  const shown = useRef(pathname);
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    main.current?.focus();
  }, [pathname]);
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: "sm", collapsed: { mobile: !opened } }}
      padding="md"
    >
      <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Anchor component={Link} to="/" underline="never" c="inherit">
              <Text span fw={700} fz={{ base: 17, sm: 22 }} style={{ whiteSpace: "nowrap" }}>
                Policy Reporter
              </Text>
            </Anchor>
          </Group>
          <Group gap="md" wrap="nowrap">
            <ThemeControls />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <NavMenu onNavigate={close} />
      </AppShell.Navbar>
      <AppShell.Main id="main" ref={main} tabIndex={-1} style={{ outline: "none" }}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
