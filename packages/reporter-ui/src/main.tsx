/** Entry point: the theme, the API client (base URL from the document) and the router. */
import "@mantine/core/styles.css";
import "./styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { ApiContext } from "./api/api-context.ts";
import { createApiClient } from "./api/client.ts";
import { resolveApiBaseUrl } from "./api/config.ts";
import { loginUrl } from "./auth/session.ts";
import { preloadRoute } from "./queries/route-queries.ts";
import { ThemeRoot } from "./theme/ThemeRoot.tsx";

const baseUrl = resolveApiBaseUrl();
// A 401 means no session (or an expired one): sign in, then come back to this view.
const api = createApiClient({
  baseUrl,
  onUnauthorized: () => window.location.assign(loginUrl(baseUrl, window.location.hash)),
});
// The page's requests start now, while React and Mantine render the first frame; the views adopt them.
preloadRoute(api, window.location.hash);
const root = document.getElementById("root");
if (!root) throw new Error("missing #root");

createRoot(root).render(
  <StrictMode>
    <ThemeRoot>
      <ApiContext.Provider value={api}>
        <App />
      </ApiContext.Provider>
    </ThemeRoot>
  </StrictMode>,
);
