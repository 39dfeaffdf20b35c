/**
 * One tenant's pathological evaluation does not hold anyone else: with evaluation workers, an
 * ordinary review in another namespace and the liveness probe are answered while a namespaced
 * Policy's nested foreach (budget raised so only the deadline stops it) is still running, and the
 * pathological review itself is answered per failure policy when its deadline passes.
 */
import { request } from "node:https";
import { getPriority, platform } from "node:os";
import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import { type AdmissionCore, createAdmissionCore } from "../controllers/admission/admission-core.js";
import { defaultKyvernoConfig } from "../controllers/admission/filters.js";
import { serveAdmission } from "../controllers/admission/serve.js";
import { generateCertificates } from "../controllers/certificates/certificates.js";
import { pod, podValidatePolicy, policy, recordingLogger, review } from "../testing/fixtures.js";
import { PLATFORM_THREAD_NAME, procThreadTable } from "./platform-threads.js";
import { SOURCE_WORKER_EXEC_ARGV, SOURCE_WORKER_URL } from "./testing/index.js";

type Json = { [key: string]: JsonValue };

function post(port: number, ca: string, path: string, body: Json): Promise<Json> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        ca,
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString()) as Json));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

function get(port: number, ca: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, ca, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A namespaced Policy whose nested foreach visits n × n elements of a Pod with n containers of n env vars. */
const hostile = policy({
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "nested", namespace: "tenant-a" },
  spec: {
    validationFailureAction: "Enforce",
    failurePolicy: "Fail",
    background: false,
    rules: [
      {
        name: "nested-foreach",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: {
          foreach: [
            {
              list: "request.object.spec.containers",
              foreach: [
                {
                  list: "request.object.spec.containers",
                  deny: {
                    conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "nope" }] },
                  },
                },
              ],
            },
          ],
        },
      },
    ],
  },
});

function celPolicy(doc: Json): CelPolicy {
  const loaded = loadCelPolicy(doc, { file: "test" });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};

/**
 * A ValidatingPolicy whose expression compares every pair of containers with every container: cheap
 * for an ordinary Pod, n × n × n iterations for the big one (its cost limit raised: only the deadline
 * stops it). n × n alone (9,000,000 for 3,000 containers) finishes inside the deadline on a quiet
 * machine, and the policy then rightly passes.
 */
const hostileCel = celPolicy({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name: "cel-nested" },
  spec: {
    matchConstraints: podRules,
    validations: [
      {
        expression:
          "object.spec.containers.all(c, object.spec.containers.all(d, object.spec.containers.all(e, c.name != 'x' + d.name + e.name)))",
        message: "never",
      },
    ],
  },
});

/** An ordinary ValidatingPolicy: Pods need a team label. */
const requireTeam = celPolicy({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name: "require-team" },
  spec: {
    matchConstraints: podRules,
    validations: [
      {
        expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
        message: "team label required",
      },
    ],
  },
});

function bigPod(n: number): Json {
  const containers = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1" }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "big", namespace: "tenant-a" },
    spec: { containers },
  };
}

const responseOf = (answer: Json) =>
  answer.response as unknown as { allowed: boolean; status?: { message?: string } };

describe("evaluation off the serving event loop", { timeout: 120_000 }, () => {
  const clock = systemClock();
  let core: AdmissionCore;
  let close: () => Promise<void>;
  let port: number;
  let ca: string;

  beforeAll(async () => {
    const certs = await generateCertificates({ hosts: ["127.0.0.1"], clock });
    ca = certs.ca.certPem;
    core = createAdmissionCore({
      config: defaultKyvernoConfig(),
      clock,
      logger: recordingLogger(),
      // 3 s: a deadline of 2.4 s for the pathological review.
      webhookTimeoutSeconds: 3,
      evaluation: {
        workers: 2,
        prestartWorkers: 2,
        // Only the deadline stops the hostile rule (3,000 × 3,000 elements would take ~20 s).
        limits: { foreachElements: 1e9, celCost: 1e12 },
        workerUrl: SOURCE_WORKER_URL,
        execArgv: SOURCE_WORKER_EXEC_ARGV,
      },
    });
    core.cache.set(hostile);
    core.cache.set(podValidatePolicy({ name: "disallow-privileged" }));
    core.celPolicies.set(hostileCel);
    core.celPolicies.set(requireTeam);
    const servers = await serveAdmission(core, {
      tls: certs.serving,
      clock,
      logger: recordingLogger(),
      host: "127.0.0.1",
      port: 0,
    });
    port = servers.port;
    close = () => servers.close();
    // Both workers started and compiled the policies.
    while (core.pool?.stats().ready !== 2) await new Promise((r) => setTimeout(r, 50));
    await Promise.all(
      ["warm-1", "warm-2"].map((ns) =>
        post(port, ca, "/validate/fail", review({ uid: `u-${ns}`, object: pod({ namespace: ns }) })),
      ),
    );
  }, 90_000);

  afterAll(async () => {
    await close?.();
  });

  it.runIf(platform() === "linux")(
    "runs V8's platform threads, which collect the workers' garbage, below the serving thread's priority",
    () => {
      const table = procThreadTable();
      const platformThreads = table.ids().filter((id) => table.name(id) === PLATFORM_THREAD_NAME);
      expect(platformThreads.length).toBeGreaterThan(0);
      for (const id of platformThreads) expect(table.priority(id)).toBeGreaterThan(getPriority());
    },
  );

  it("answers an ordinary review and the liveness probe while a pathological review runs", async () => {
    const order: string[] = [];
    const pathological = post(
      port,
      ca,
      "/validate/fail",
      review({ uid: "pathological", object: bigPod(3000) }),
    ).then((answer) => {
      order.push("pathological");
      return answer;
    });
    // The pathological job is running in a worker before the others are sent.
    while (core.pool?.stats().running !== 1) await new Promise((r) => setTimeout(r, 10));
    const ordinary = post(
      port,
      ca,
      "/validate/fail",
      review({ uid: "ordinary", object: pod({ namespace: "tenant-b", privileged: true }) }),
    ).then((answer) => {
      order.push("ordinary");
      return answer;
    });
    const liveness = get(port, ca, "/health/liveness").then((status) => {
      order.push("liveness");
      return status;
    });
    const [p, o, l] = await Promise.all([pathological, ordinary, liveness]);

    expect(order.indexOf("pathological")).toBe(2);
    expect(l).toBe(200);
    // The ordinary review was evaluated (its own policy denied it), not answered by a timeout.
    expect(responseOf(o).allowed).toBe(false);
    expect(responseOf(o).status?.message).toContain("disallow-privileged");
    // The pathological one is answered per failure policy (Fail + Enforce: denied) with the reason.
    expect(responseOf(p).allowed).toBe(false);
    expect(responseOf(p).status?.message).toContain("nested-foreach");
    expect(responseOf(p).status?.message).toContain("evaluation budget exceeded");
    expect(core.pool?.stats().running).toBe(0);
  });

  it("does the same for a CEL policy: the ValidatingPolicy is evaluated in a worker", async () => {
    const order: string[] = [];
    const pathological = post(
      port,
      ca,
      "/vpol/fail",
      review({ uid: "cel-pathological", object: bigPod(3000) }),
    ).then((answer) => {
      order.push("pathological");
      return answer;
    });
    while (core.pool?.stats().running !== 1) await new Promise((r) => setTimeout(r, 10));
    const ordinary = post(
      port,
      ca,
      "/vpol/fail",
      review({ uid: "cel-ordinary", object: pod({ name: "web", namespace: "tenant-b" }) }),
    ).then((answer) => {
      order.push("ordinary");
      return answer;
    });
    const liveness = get(port, ca, "/health/liveness").then((status) => {
      order.push("liveness");
      return status;
    });
    const [p, o, l] = await Promise.all([pathological, ordinary, liveness]);

    expect(order.indexOf("pathological")).toBe(2);
    expect(l).toBe(200);
    // The ordinary review was evaluated: the hostile policy passed it, require-team denied it.
    expect(responseOf(o).allowed).toBe(false);
    expect(responseOf(o).status?.message).toBe("Policy require-team failed: team label required");
    // The pathological one: the hostile policy stopped with an error (failurePolicy Fail: denied).
    expect(responseOf(p).allowed).toBe(false);
    expect(responseOf(p).status?.message).toContain("Policy cel-nested error:");
    expect(core.pool?.stats().running).toBe(0);
  });
});
