import { afterEach, describe, expect, it } from "vitest";
import { createMetricsServer, type MetricsServer } from "./metrics-server.js";

const metrics = {
  *chunks() {
    yield "kyverno_info";
    yield " 1\n";
  },
  contentType: "text/plain; version=0.0.4",
};

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
}

describe("metrics server probes", () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers liveness while running and readiness as ready() says", async () => {
    let ready = false;
    server = createMetricsServer({ metrics, ready: () => ready });
    const { port } = await server.listen({ host: "127.0.0.1", port: 0 });
    expect(await get(port, "/health/liveness")).toEqual({ status: 200, text: "ok" });
    expect(await get(port, "/health/readiness")).toEqual({ status: 503, text: "not ready" });
    ready = true;
    expect(await get(port, "/health/readiness")).toEqual({ status: 200, text: "ok" });
    // The chunks are streamed one after the other.
    expect((await get(port, "/metrics")).text).toBe("kyverno_info 1\n");
  });

  it("is ready while listening when no readiness is given, and stops answering once closed", async () => {
    server = createMetricsServer({ metrics });
    const { port } = await server.listen({ host: "127.0.0.1", port: 0 });
    expect((await get(port, "/health/readiness")).status).toBe(200);
    await server.close();
    server = undefined;
    await expect(get(port, "/health/liveness")).rejects.toThrow();
  });
});
