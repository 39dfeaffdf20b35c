import { describe, expect, it } from "vitest";
import { createApiClient } from "./client.ts";
import { ApiRequestError } from "./errors.ts";

function recorder(status = 200, body: unknown = []) {
  const urls: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    urls.push(String(input));
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { urls, fetch };
}

describe("API client", () => {
  it("builds URLs under the base with repeated list parameters", async () => {
    const { urls, fetch } = recorder();
    const api = createApiClient({ baseUrl: "http://reporter.local/ui", fetch });
    await api.results("namespace", { namespaces: ["a", "b"], severities: ["high"], page: 2, offset: 10 })();
    await api.resource("id/with space")();
    await api.namespaceStatusCounts("kyverno", {})();
    await api.policyDetails("shop/require team")();
    await api.policyDetails("disallow-latest-tag")();
    expect(urls).toEqual([
      "http://reporter.local/ui/v2/namespace-scoped/results?namespaces=a&namespaces=b&severities=high&page=2&offset=10",
      "http://reporter.local/ui/v2/resource/id%2Fwith%20space",
      "http://reporter.local/ui/v2/namespace-scoped/kyverno/status-counts",
      "http://reporter.local/ui/v2/policy-details/shop/require%20team",
      "http://reporter.local/ui/v2/policy-details/disallow-latest-tag",
    ]);
  });

  it("fails with the reporter's error message and reports 401s", async () => {
    const { fetch } = recorder(400, {
      statusCode: 400,
      code: "FST_ERR_VALIDATION",
      error: "Bad Request",
      message: "querystring/page must be >= 1",
    });
    const api = createApiClient({ baseUrl: "http://x/", fetch });
    const error = await api
      .findings()()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 400,
      code: "FST_ERR_VALIDATION",
      message: "querystring/page must be >= 1",
    });

    let unauthorized = 0;
    const denied = createApiClient({
      baseUrl: "http://x/",
      fetch: recorder(401, {}).fetch,
      onUnauthorized: () => unauthorized++,
    });
    await expect(denied.targets()()).rejects.toMatchObject({ status: 401 });
    expect(unauthorized).toBe(1);
  });
});
