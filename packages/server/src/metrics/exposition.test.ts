import { describe, expect, it } from "vitest";
import { createAdmissionMetrics } from "./metrics.js";

const probe = {
  cpuSeconds: () => 12.5,
  residentBytes: () => 104857600,
  heapUsedBytes: () => 52428800,
  startTimeSeconds: () => 1700000000,
};

describe("the exposition", () => {
  it("streams a large scrape in chunks of whole lines that add up to the whole text", async () => {
    const metrics = createAdmissionMetrics({ version: "x", processProbe: probe });
    for (let i = 0; i < 3000; i++)
      metrics.admissionRequest(
        {
          resourceKind: "Pod",
          resourceNamespace: `ns-${i}`,
          operation: "CREATE",
          allowed: true,
          webhook: "ValidatingWebhookConfiguration",
        },
        0.01,
      );
    const chunks = [...metrics.chunks()];
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(chunk.endsWith("\n")).toBe(true);
    const whole = await metrics.render();
    expect(chunks.join("")).toBe(whole);
    expect(whole.match(/^kyverno_admission_requests_total\{/gm)).toHaveLength(3000);
  });

  it("exposes the process figures under the standard names", async () => {
    const text = await createAdmissionMetrics({ version: "x", processProbe: probe }).render();
    expect(text).toContain("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n");
    expect(text).toContain("process_resident_memory_bytes 104857600\n");
    expect(text).toContain("nodejs_heap_size_used_bytes 52428800\n");
    expect(text).toContain("process_start_time_seconds 1700000000\n");
  });
});
