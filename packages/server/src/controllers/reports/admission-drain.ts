/**
 * Taking the results the admission controller (and the background controller) hand over in process:
 * drained in batches on a timer turn after they become available, each merged into the admission
 * result store and its resource queued. A CREATE's mutating webhook results name the object before it
 * had a uid: they are taken once the object is stored.
 */
import { awaitsUid, resolveCreatedUid } from "../../reports/created-uid.js";
import { ingestAdmissionResult } from "./admission-intake.js";
import type { ControllerState } from "./controller-state.js";
import { enqueueAdmitted } from "./requeue.js";

/** Results taken per batch. */
const BATCH = 500;

/** Takes every available result. */
function drainAdmission(s: ControllerState): void {
  s.drainScheduled = false;
  const source = s.options.admissionResults;
  const deps = {
    cache: s.cache,
    admission: s.admission,
    enqueue: (key: string) => enqueueAdmitted(s, key),
    cel: s.celReports,
  };
  for (let batch = source?.drain(BATCH) ?? []; batch.length > 0; batch = source?.drain(BATCH) ?? [])
    for (const result of batch) {
      // A CREATE's mutating webhook results name the object before it had a uid: look it up once stored.
      if (awaitsUid(result))
        void resolveCreatedUid(s.options.client, result).then(
          (r) => r && !s.stopped && ingestAdmissionResult(r, deps),
        );
      else ingestAdmissionResult(result, deps);
    }
}

/** Drains on the next timer turn (once, however often results become available before it). */
export function scheduleDrain(s: ControllerState): void {
  if (s.drainScheduled || s.stopped) return;
  s.drainScheduled = true;
  s.clock.after(0, () => drainAdmission(s));
}
