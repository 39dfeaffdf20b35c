/**
 * The routes. A hash router: every page lives on `index.html`, so the reporter serves the built
 * files under `/` (or any prefix) without a fallback route, and `#/path?filters` is shareable.
 */
import { HashRouter, Route, Routes } from "react-router";
import { ROUTES } from "./components/links.ts";
import { Shell } from "./layout/Shell.tsx";
import { DashboardPage } from "./pages/DashboardPage.tsx";
import { NamespacePage } from "./pages/NamespacePage.tsx";
import { NamespacesPage } from "./pages/NamespacesPage.tsx";
import { NotFoundPage } from "./pages/NotFoundPage.tsx";
import { PoliciesPage } from "./pages/PoliciesPage.tsx";
import { PolicyPage } from "./pages/PolicyPage.tsx";
import { ResourcePage } from "./pages/ResourcePage.tsx";
import { SourcePage } from "./pages/SourcePage.tsx";
import { TargetsPage } from "./pages/TargetsPage.tsx";

/** The app's router and pages. */
export function App() {
  return (
    <HashRouter>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<DashboardPage />} />
          <Route path={ROUTES.source} element={<SourcePage />} />
          <Route path={ROUTES.namespaces} element={<NamespacesPage />} />
          <Route path={ROUTES.namespace} element={<NamespacePage />} />
          <Route path={ROUTES.resource} element={<ResourcePage />} />
          <Route path={ROUTES.policies} element={<PoliciesPage />} />
          <Route path={ROUTES.policy} element={<PolicyPage />} />
          <Route path={ROUTES.targets} element={<TargetsPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </HashRouter>
  );
}
