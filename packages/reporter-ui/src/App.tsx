/**
 * The routes. A hash router: every page lives on `index.html`, so the reporter serves the built
 * files under `/` (or any prefix) without a fallback route, and `#/path?filters` is shareable.
 */
import { HashRouter, Route, Routes } from "react-router";
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
          <Route path="sources/:source" element={<SourcePage />} />
          <Route path="namespaces" element={<NamespacesPage />} />
          <Route path="namespaces/:namespace" element={<NamespacePage />} />
          <Route path="resources/:id" element={<ResourcePage />} />
          <Route path="policies" element={<PoliciesPage />} />
          <Route path="policies/:source/:policy" element={<PolicyPage />} />
          <Route path="targets" element={<TargetsPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </HashRouter>
  );
}
