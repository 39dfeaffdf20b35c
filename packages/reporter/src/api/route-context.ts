/** What every route module receives from the API server. */
import type { ReportStore } from "../store/types.js";
import type { Target } from "./contract.js";

/** What route modules receive. */
export interface RouteContext {
  store: ReportStore;
  targets: () => readonly Target[];
}
