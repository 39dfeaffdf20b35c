import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createCelEnvironment } from "./env.js";
import { createSession } from "./session.js";
import { toCelValue, toJson } from "./values.js";

const env = createCelEnvironment({ variables: ["object", "variables"] });

const pod: JsonValue = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", labels: { app: "web" } },
  spec: {
    replicas: 3,
    containers: [
      { name: "a", image: "nginx:1.25" },
      {
        name: "b",
        image: `ghcr.io/acme/api@sha256:${"a".repeat(64)}`,
        securityContext: { privileged: true },
      },
    ],
  },
};

function run(expression: string, object: JsonValue = pod, session = createSession()): JsonValue | string {
  const compiled = env.compile(expression);
  if (!compiled.ok) return `compile: ${compiled.error}`;
  const out = compiled.program.evaluate({ object: toCelValue(object), variables: toCelValue({}) }, session);
  return out.ok ? toJson(out.value) : `error: ${out.error}`;
}

describe("CEL environment", () => {
  it("evaluates optional chains as Kubernetes does", () => {
    expect(run("object.spec.containers.map(c, c.?securityContext.?privileged.orValue(false))")).toEqual([
      false,
      true,
    ]);
    expect(run("object.spec.?initContainers.orValue([]).size()")).toBe(0);
    expect(run("object.metadata.?labels.?app.hasValue()")).toBe(true);
    expect(run("object.spec.containers[?5].hasValue()")).toBe(false);
    expect(run("optional.none().orValue('x')")).toBe("x");
    expect(run("[?optional.of(1), ?optional.none(), 2]")).toEqual([1, 2]);
    expect(run("{?'a': optional.of(1), ?'b': optional.none()}")).toEqual({ a: 1 });
  });

  it("keeps what follows `.?` optional, as cel-go: `x.?a['k']` and `x.?a.k` are none when absent", () => {
    // Upstream's documented targetMatchConditions form.
    expect(run("object.metadata.?labels['app'].orValue('')")).toBe("web");
    expect(run("object.metadata.?labels['team'].orValue('none')")).toBe("none");
    expect(run("object.metadata.?labels.app.orValue('')")).toBe("web");
    expect(run("object.metadata.?annotations['a'].orValue('none')")).toBe("none");
    expect(run("object.spec.?containers[1].name.orValue('')")).toBe("b");
    expect(run("object.spec.?containers[5].hasValue()")).toBe(false);
    expect(run("optional.of('text')['k']")).toMatch(/^error: /);
    // Without `.?`, a missing key stays an error.
    expect(run("object.metadata.labels['team']")).toMatch(/^error: no such key/);
  });

  it("treats JSON whole numbers as int and keeps field errors", () => {
    expect(run("object.spec.replicas + 1")).toBe(4);
    expect(run("object.spec.replicas / 2")).toBe(1);
    expect(String(run("object.spec.missing"))).toMatch(/^error: /);
    expect(run("has(object.spec.missing)")).toBe(false);
  });

  it("compares, adds and tests membership as CEL does (fast paths and the library's overloads agree)", () => {
    expect(run("'a' < 'b' && 'b' >= 'b' && 2 > 1 && 1 <= 1 && 0.5 < 1.5")).toBe(true);
    expect(run("1 < 2.5 && 3.0 > 2 && false < true")).toBe(true);
    expect(run("object.spec.replicas > 2 && object.spec.replicas + 1 == 4")).toBe(true);
    expect(run("9223372036854775807 + 1")).toMatch(/^error: .*int overflow/);
    expect(run("1 < 'a'")).toMatch(/^error: found no matching overload for '_<_'/);
    expect(run("object.spec.containers.exists_one(c, c.name == 'a')")).toBe(true);
    expect(run("'b' in object.spec.containers.map(c, c.name) && !(3 in [1, 2])")).toBe(true);
    expect(run("object.metadata.labels.app")).toBe("web");
    expect(run("object.metadata.?labels.app.orValue('none')")).toBe("web");
    expect(run("object.metadata.name.size")).toMatch(/^error: no such key: size/);
  });

  it("runs all() and exists() with CEL's error rules: a decisive element wins over errors", () => {
    expect(run("[1, 'a'].all(x, x > 0)")).toMatch(/^error: found no matching overload for '_>_'/);
    expect(run("[0, 'a'].all(x, x > 0) == false && ['a', 0].all(x, x > 0) == false")).toBe(true);
    expect(run("['a', 2].all(x, x > 1)")).toMatch(/^error: found no matching overload for '_>_'/);
    expect(run("['a', 2].exists(x, x > 1)")).toBe(true);
    expect(run("[1].all(x, 'str')")).toBe("error: no matching overload for '_&&_'");
    expect(run("[1].exists(x, 'str')")).toBe("error: no matching overload for '_||_'");
    expect(run("[].all(x, x) && ![].exists(x, x) && {'a': 1}.all(k, k == 'a')")).toBe(true);
    expect(run("[[1, 2], [3]].all(l, l.all(y, y > 0)) && [1, 2].all(x, [x].exists(y, y == x))")).toBe(true);
    expect(run("5.all(x, x)")).toBe("error: type mismatch: iterable vs int");
  });

  it("has Kubernetes' string, regex and list functions", () => {
    expect(run("'a,b,,c'.split(',').filter(s, s != '')")).toEqual(["a", "b", "c"]);
    expect(run("object.spec.containers.map(c, c.name).join('-')")).toBe("a-b");
    expect(run("'abc123'.find('[0-9]+')")).toBe("123");
    expect(run("'a1b22'.findAll('[0-9]+')")).toEqual(["1", "22"]);
    expect(run("[3, 1, 2].sort()")).toEqual([1, 2, 3]);
    expect(run("[1, 2, 3].isSorted() && [1, 2].sum() == 3")).toBe(true);
    expect(run("'x' .matches('^(a|x)$')")).toBe(true);
    expect(run("cel.bind(n, object.spec.containers.size(), n * n)")).toBe(4);
    expect(run("math.greatest(1, 5, 3) + math.least([4, 2])")).toBe(7);
    expect(run("object.spec.containers.all(i, c, c.name != '' && i >= 0)")).toBe(true);
    expect(run("object.metadata.labels.transformMap(k, v, v + '!')")).toEqual({ app: "web!" });
    expect(run("object.spec.containers.transformList(i, c, i > 0, c.name)")).toEqual(["b"]);
    expect(run("'%s has %d'.format(['a', 2])")).toBe("a has 2");
  });

  it("has the quantity, url, ip, cidr and semver types", () => {
    expect(run("quantity('1Gi').isGreaterThan(quantity('512Mi'))")).toBe(true);
    expect(run("quantity('500m').compareTo(quantity('1'))")).toBe(-1);
    expect(run("url('https://example.com:8443/p?q=1').getPort()")).toBe("8443");
    expect(run("cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))")).toBe(true);
    expect(run("cidr('10.0.0.0/8').containsIP('11.1.2.3')")).toBe(false);
    expect(run("semver('1.2.3').isLessThan(semver('1.10.0'))")).toBe(true);
  });

  it("has Kyverno's image, json and hash functions", () => {
    expect(run("object.spec.containers.map(c, image(c.image).containsDigest())")).toEqual([false, true]);
    expect(run("image('nginx').registry()")).toBe("docker.io");
    expect(run("json.unmarshal('{\"a\": [1]}').a[0]")).toBe(1);
    expect(run("yaml.parse('a: b').a")).toBe("b");
    expect(run("sha256('x').size()")).toBe(64);
    expect(run("jsonpatch.escapeKey('a/b~c')")).toBe("a~1b~0c");
  });

  it("builds maps from Object{} and JSONPatch{} literals", () => {
    expect(run("JSONPatch{op: 'add', path: '/a', value: 1}")).toEqual({ op: "add", path: "/a", value: 1 });
    expect(run("Object{metadata: Object.metadata{labels: {'a': 'b'}}}")).toEqual({
      metadata: { labels: { a: "b" } },
    });
  });

  it("reports compile errors with their cause", () => {
    expect(String(run("object.spec +"))).toMatch(/^compile: syntax error/);
    expect(run("nope == 1")).toBe("compile: 1:1: undeclared reference to 'nope' (in container '')");
    expect(run("object.spec.replicas > 1 && noSuchFunction(object)")).toBe(
      "compile: 1:29: undeclared reference to 'noSuchFunction' (in container '')",
    );
  });

  it("stops a hostile expression at the cost budget, as an error", () => {
    const hostile =
      "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].all(d, true))))";
    expect(run(hostile, pod, createSession({ budget: 1000 }))).toBe(
      "error: operation cancelled: actual cost limit exceeded",
    );
  });

  it("stops an expression past its deadline, as an error", () => {
    let now = 0;
    const session = createSession({ deadlineMs: 5, monotonic: () => now });
    now = 10;
    const slow = "[1,2,3,4,5,6,7,8].map(a, [1,2,3,4,5,6,7,8].map(b, [1,2,3,4,5,6,7,8].map(c, c)))";
    expect(run(slow, pod, session)).toBe("error: operation cancelled: evaluation deadline exceeded");
  });
});
