import { describe, expect, it } from "vitest";
import { fetchProfile, loginUrl, logoutUrl } from "./session.ts";

const respond = (status: number, body: unknown) =>
  (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

describe("login helpers", () => {
  it("builds the sign-in URL with the view to return to", () => {
    expect(loginUrl("http://r.local/", "#/resources/x?namespaces=a")).toBe(
      "http://r.local/login?returnTo=%23%2Fresources%2Fx%3Fnamespaces%3Da",
    );
    expect(loginUrl("http://r.local/ui/", "")).toBe("http://r.local/ui/login");
    expect(logoutUrl("http://r.local/ui/")).toBe("http://r.local/ui/logout");
  });

  it("reads the profile; 404 means no login, 401 reports the ended session", async () => {
    const alice = { name: "Alice", email: "alice@example.com", groups: ["platform"], method: "oidc" };
    expect(await fetchProfile("http://r.local/", { fetch: respond(200, alice) })).toEqual(alice);
    expect(await fetchProfile("http://r.local/", { fetch: respond(404, {}) })).toBeNull();
    let unauthorized = 0;
    const onUnauthorized = () => void unauthorized++;
    expect(await fetchProfile("http://r.local/", { fetch: respond(401, {}), onUnauthorized })).toBeNull();
    expect(unauthorized).toBe(1);
  });
});
