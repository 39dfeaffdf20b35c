import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pod, recordingLogger, review } from "../testing/fixtures.js";
import { type AdmissionReadyInfo, runAdmissionCommand } from "./admission.js";

function buffer() {
  let text = "";
  return {
    write: (s: string) => {
      text += s;
    },
    get text() {
      return text;
    },
  };
}

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-privileged
spec:
  validationFailureAction: Enforce
  rules:
    - name: privileged
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: privileged mode is not allowed
        pattern:
          spec:
            containers:
              - =(securityContext):
                  =(privileged): "false"
`;

function post(info: AdmissionReadyInfo, path: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: info.port,
        method: "POST",
        path,
        ca: info.caCertPem,
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => resolve(text));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function policyDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-admission-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("kyverno-ts admission", () => {
  it("serves policies from a directory in standalone mode and stops on abort", async () => {
    const dir = policyDir({
      "pss/privileged.yaml": POLICY,
      ".chainsaw-test/ignored.yaml":
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: x}\nstatus: {}\n",
    });
    const stdout = buffer();
    const stderr = buffer();
    const controller = new AbortController();
    let answer = "";
    let info: AdmissionReadyInfo | undefined;
    const code = await runAdmissionCommand({
      args: ["--policies", dir, "--standalone", "--port", "0", "--metrics-port", "0", "--host", "127.0.0.1"],
      stdout,
      stderr,
      logger: recordingLogger(),
      signal: controller.signal,
      onReady: (ready) => {
        info = ready;
        post(ready, "/validate/fail", JSON.stringify(review({ object: pod({ privileged: true }) })))
          .then((text) => {
            answer = text;
          })
          .finally(() => controller.abort());
      },
    });
    expect(code).toBe(0);
    expect(stderr.text).toBe("");
    expect(stdout.text).toContain("kyverno-ts admission (standalone): 1 policies (3 rules), 0 exceptions");
    expect(stdout.text).toContain(`caBundle: ${info?.caBundle}`);
    expect(JSON.parse(answer).response.status.message).toContain("disallow-privileged:\n  privileged: ");
  });

  it("serves ValidatingPolicies from the same directory on /vpol in standalone mode", async () => {
    const dir = policyDir({
      "vpol.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: no-privileged}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "!object.spec.containers.exists(c, c.?securityContext.?privileged.orValue(false))"
    message: privileged containers are not allowed
`,
    });
    const stdout = buffer();
    const stderr = buffer();
    const controller = new AbortController();
    let answer = "";
    const code = await runAdmissionCommand({
      args: ["--policies", dir, "--standalone", "--port", "0", "--metrics-port", "0", "--host", "127.0.0.1"],
      stdout,
      stderr,
      logger: recordingLogger(),
      signal: controller.signal,
      onReady: (ready) => {
        post(ready, "/vpol/fail", JSON.stringify(review({ object: pod({ privileged: true }) })))
          .then((text) => {
            answer = text;
          })
          .finally(() => controller.abort());
      },
    });
    expect(code).toBe(0);
    expect(stderr.text).toBe("");
    expect(stdout.text).toContain(
      "0 policies (0 rules), 0 exceptions (ignored: --enablePolicyException is off), 1 CEL policies",
    );
    expect(JSON.parse(answer).response).toMatchObject({
      allowed: false,
      status: { message: "Policy no-privileged failed: privileged containers are not allowed" },
    });
  });

  it("ignores PolicyExceptions unless --enablePolicyException, and then takes them only from --exceptionNamespace", async () => {
    const exceptionIn = (namespace: string) => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: allow-debug
  namespace: ${namespace}
spec:
  exceptions:
    - policyName: disallow-privileged
      ruleNames: [privileged]
  match:
    any:
      - resources:
          kinds: [Pod]
`;
    const allowed = async (files: Record<string, string>, flags: string[]) => {
      const dir = policyDir({ "policy.yaml": POLICY, ...files });
      const stderr = buffer();
      const controller = new AbortController();
      let answer = "";
      await runAdmissionCommand({
        args: [
          "--policies",
          dir,
          "--standalone",
          "--port",
          "0",
          "--metrics-port",
          "0",
          "--host",
          "127.0.0.1",
          ...flags,
        ],
        stdout: buffer(),
        stderr,
        logger: recordingLogger(),
        signal: controller.signal,
        onReady: (ready) => {
          post(ready, "/validate/fail", JSON.stringify(review({ object: pod({ privileged: true }) })))
            .then((text) => {
              answer = text;
            })
            .finally(() => controller.abort());
        },
      });
      return { allowed: JSON.parse(answer).response.allowed as boolean, stderr: stderr.text };
    };
    const off = await allowed({ "exception.yaml": exceptionIn("kyverno") }, []);
    expect(off.allowed).toBe(false);
    expect(off.stderr).toContain(
      "1 PolicyException(s) in --policies are ignored: --enablePolicyException is off",
    );
    expect(
      (await allowed({ "exception.yaml": exceptionIn("kyverno") }, ["--enablePolicyException"])).allowed,
    ).toBe(true);
    const elsewhere = ["--enablePolicyException=true", "--exceptionNamespace", "kyverno"];
    expect((await allowed({ "exception.yaml": exceptionIn("team-a") }, elsewhere)).allowed).toBe(false);
    expect((await allowed({ "exception.yaml": exceptionIn("kyverno") }, elsewhere)).allowed).toBe(true);
  });

  it("refuses bad flags, a missing mode and invalid policies with exit status 2", async () => {
    const run = async (args: string[]) => {
      const stderr = buffer();
      const code = await runAdmissionCommand({ args, stdout: buffer(), stderr, logger: recordingLogger() });
      return { code, stderr: stderr.text };
    };
    expect((await run(["--nope"])).code).toBe(2);
    expect((await run(["--policies", "x", "--port", "99999", "--standalone"])).stderr).toContain(
      "--webhookServerPort must be a port number",
    );
    expect((await run(["--nope"])).stderr).toBe(
      "error: flag provided but not defined: -nope\n(run kyverno-ts admission --help for the flags)\n",
    );
    expect((await run(["--policies", "x"])).stderr).toContain("--policies is for --standalone");
    expect((await run(["--standalone"])).stderr).toContain("--policies is required");
    const bad = policyDir({ "bad.yaml": POLICY.replace("pattern:", "patern:") });
    const invalid = await run(["--policies", bad, "--standalone", "--port", "0", "--metrics-port", "0"]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(
      /bad\.yaml:\d+ \(document 1\): spec\.rules\[0\]\.validate: unknown field "patern"/,
    );
  });

  it("runs cluster mode without --standalone (its modules loaded on use), with a clear error for a missing kubeconfig", async () => {
    const stderr = buffer();
    const missing = join(tmpdir(), "kyverno-ts-admission-no-such-kubeconfig");
    const code = await runAdmissionCommand({
      args: ["--kubeconfig", missing, "--port", "0", "--metrics-port", "0", "--host", "127.0.0.1"],
      stdout: buffer(),
      stderr,
      logger: recordingLogger(),
    });
    expect(code).toBe(2);
    expect(stderr.text).toContain(
      `error: cannot start: ENOENT: no such file or directory, open '${missing}'`,
    );
  });

  it("prints the help it is given (the CLI's) with --help, -h or -help", async () => {
    for (const flag of ["--help", "-h", "-help"]) {
      const stdout = buffer();
      expect(await runAdmissionCommand({ args: [flag], stdout, stderr: buffer(), usage: "help\n" })).toBe(0);
      expect(stdout.text).toBe("help\n");
    }
  });
});
