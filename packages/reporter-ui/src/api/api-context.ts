/** The API client made available to every view through React context. */
import { createContext, useContext } from "react";
import type { ApiClient } from "./client.ts";

/** Holds the client; set by `main.tsx` (tests can provide a fake). */
export const ApiContext = createContext<ApiClient | null>(null);

/** The API client of the nearest provider; throws outside one (a wiring bug). */
export function useApiClient(): ApiClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error("useApiClient outside ApiContext");
  return client;
}
