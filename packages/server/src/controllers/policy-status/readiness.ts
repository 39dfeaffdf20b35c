/** The readiness a status reports. */
export interface Readiness {
  ready: boolean;
  reason: "Succeeded" | "Failed";
  message: string;
}
