/** Entry point: the theme, the API client (base URL from the document) and the router. */
import "@mantine/core/styles.css";
import "@mantine/charts/styles.css";
import "./styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { ApiContext } from "./api/api-context.ts";
import { createApiClient } from "./api/client.ts";
import { resolveApiBaseUrl } from "./api/config.ts";
import { ThemeRoot } from "./theme/ThemeRoot.tsx";

const api = createApiClient({ baseUrl: resolveApiBaseUrl() });
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
