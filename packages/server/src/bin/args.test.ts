import { describe, expect, it } from "vitest";
import { parseAdmissionArgs } from "./args.js";

const parse = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseAdmissionArgs(argv, env);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.args;
};

describe("admission flags (cluster mode)", () => {
  it("defaults to upstream's names, read from the environment as upstream does", () => {
    const args = parse([], { POD_NAME: "kyverno-admission-controller-0" });
    expect(args).toMatchObject({
      standalone: false,
      namespace: "kyverno",
      serviceName: "kyverno-svc",
      servicePort: 443,
      configMapName: "kyverno",
      leaderElection: true,
      identity: "kyverno-admission-controller-0",
      webhookTimeoutSeconds: 10,
      port: 9443,
      metricsPort: 8000,
      webhookUrl: undefined,
      serverHost: undefined,
    });
    expect(parse([], { KYVERNO_NAMESPACE: "security", KYVERNO_SVC: "kv", INIT_CONFIG: "cfg" })).toMatchObject(
      {
        namespace: "security",
        serviceName: "kv",
        configMapName: "cfg",
      },
    );
    expect(parse(["--namespace", "ns", "--serviceName", "svc", "--kubeconfig", "/k"])).toMatchObject({
      namespace: "ns",
      serviceName: "svc",
      kubeconfig: "/k",
    });
  });

  it("accepts Go-style booleans for --leaderElection", () => {
    expect(parse(["--leaderElection=false"]).leaderElection).toBe(false);
    expect(parse(["--no-leaderElection"]).leaderElection).toBe(false);
    expect(parse(["--leaderElection=true"]).leaderElection).toBe(true);
    expect(parse(["--leaderElection"]).leaderElection).toBe(true);
    const bad = parseAdmissionArgs(["--leaderElection=maybe"], {});
    expect(bad).toEqual({ ok: false, message: '--leaderElection takes true or false, got "maybe"' });
  });

  it("points the webhooks at this process with --serverIP or --url-override", () => {
    expect(parse(["--serverIP", "10.0.0.5"])).toMatchObject({
      serverHost: "10.0.0.5",
      webhookUrl: undefined,
    });
    expect(parse(["--serverIP", "10.0.0.5:8443"])).toMatchObject({
      serverHost: undefined,
      webhookUrl: "https://10.0.0.5:8443",
    });
    expect(parse(["--serverIP", "::1"]).serverHost).toBe("::1");
    expect(parse(["--url-override", "https://gw.example.com/kyverno/"]).webhookUrl).toBe(
      "https://gw.example.com/kyverno",
    );
    expect(parseAdmissionArgs(["--url-override", "http://x"], {})).toEqual({
      ok: false,
      message: "--url-override must be an https:// URL",
    });
  });
});
