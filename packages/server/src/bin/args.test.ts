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
      admissionReports: true,
      disableMetrics: false,
      log: { format: "text", verbosity: 2, timestampFormat: "rfc3339" },
      warnings: [],
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
    expect(parseAdmissionArgs(["--no-leaderElection"], {})).toEqual({
      ok: false,
      message: "flag provided but not defined: -no-leaderElection",
    });
    expect(parse(["--leaderElection=true"]).leaderElection).toBe(true);
    expect(parse(["--leaderElection"]).leaderElection).toBe(true);
    const bad = parseAdmissionArgs(["--leaderElection=maybe"], {});
    expect(bad).toEqual({
      ok: false,
      message: 'invalid boolean value "maybe" for -leaderElection: parse error',
    });
  });

  it("takes the background controller's user for the permission checks, without a warning", () => {
    expect(parse([]).backgroundServiceAccountName).toBe("");
    const given = parse(["--backgroundServiceAccountName=system:serviceaccount:ops:bg"]);
    expect(given.backgroundServiceAccountName).toBe("system:serviceaccount:ops:bg");
    expect(given.warnings).toEqual([]);
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

describe("admission flags: upstream's spellings", () => {
  it("takes upstream's names beside kyverno-ts's earlier ones, the last occurrence winning", () => {
    expect(parse(["-webhookServerPort=8443", "--metricsPort", "9000"])).toMatchObject({
      port: 8443,
      metricsPort: 9000,
    });
    expect(parse(["--port", "1", "--webhookServerPort=2"]).port).toBe(2);
    expect(
      parse(["--disableMetrics", "--admissionReports=false", "-v=6", "--loggingFormat=json"]),
    ).toMatchObject({ disableMetrics: true, admissionReports: false, log: { format: "json", verbosity: 6 } });
    expect(parse(["--leaderElectionRetryPeriod=500ms"]).leaderRetryPeriodMs).toBe(500);
    expect(parse(["--clientRateLimitQPS=0.5"]).clientQps).toBe(0.5);
  });

  it("warns once per upstream flag it accepts without effect, unless given what kyverno-ts does anyway", () => {
    const args = parse([
      "--dumpPayload=true",
      "--autoUpdateWebhooks=true",
      "--otelConfig=prometheus",
      "--tlsKeyAlgorithm=RSA",
      "--renewBefore=360h",
      "--generateValidatingAdmissionPolicy=false",
      "--protectManagedResources",
    ]);
    expect(args.warnings).toEqual([
      "--dumpPayload=true is accepted and has no effect in kyverno-ts because AdmissionReview payloads are not logged yet",
      "--protectManagedResources=true is accepted and has no effect in kyverno-ts because managed resources are not protected yet",
      "--tlsKeyAlgorithm is accepted and has no effect in kyverno-ts because certificates are always ECDSA P-256",
    ]);
  });

  it("refuses another controller's flag, naming the controller", () => {
    expect(parseAdmissionArgs(["--backgroundScanWorkers=4"], {})).toEqual({
      ok: false,
      message: "flag provided but not defined: -backgroundScanWorkers (a flag of the reports controller)",
    });
  });
});
