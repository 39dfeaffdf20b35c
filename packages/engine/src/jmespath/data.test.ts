import { describe, expect, it } from "vitest";
import { evaluator } from "./testing/evaluator.js";

const { value, error } = evaluator();

describe("parse_json", () => {
  it("decodes JSON held in strings", () => {
    const data = { data: { finance: '["1001","1002"]' } };
    expect(value("data.finance | parse_json(@)[*].to_number(@)", data)).toEqual([1001, 1002]);
    expect(value('parse_json(\'{"a": {"b": true}}\').a.b')).toBe(true);
  });
  it("reports invalid JSON", () => {
    expect(error("parse_json('{')")).toContain("JMESPath function 'parse_json'");
  });
});

describe("parse_yaml", () => {
  it("decodes YAML held in strings", () => {
    const pets =
      "species:\n  dog: lab\n  height: 15\n  isGoodBoi: false\n  snacks:\n  - chimken\n  - fries\n";
    expect(value("pets | parse_yaml(@).species.isGoodBoi", { pets })).toBe(false);
    expect(value("pets | parse_yaml(@).species.snacks", { pets })).toEqual(["chimken", "fries"]);
    expect(value("parse_yaml(@)", "a: yes\n1: x\n")).toEqual({ a: true, "1": "x" });
  });
  it("reports invalid YAML and bounds alias expansion", () => {
    expect(error("parse_yaml(@)", "a: [")).toContain("JMESPath function 'parse_yaml'");
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (const [prev, next] of [
      ["a", "b"],
      ["b", "c"],
      ["c", "d"],
      ["d", "e"],
      ["e", "f"],
    ]) {
      bomb.push(
        `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    expect(error("parse_yaml(@)", bomb.join("\n"))).toContain("parse_yaml");
  });
});

describe("lookup", () => {
  it("looks up keys and indexes", () => {
    expect(value('lookup( `{"key1": "value1", "key2": "value2"}`, `"key2"` )')).toBe("value2");
    expect(value('lookup( `["item0", "item1", "item2"]`, `1` )')).toBe("item1");
    expect(value('lookup( `["item0"]`, `5` )')).toBeNull();
    expect(value("lookup( `{\"a\": 1}`, 'b' )")).toBeNull();
    expect(
      value(
        "lookup(metadata.annotations, join('', ['container.apparmor.security.beta.kubernetes.io/', 'c']))",
        {
          metadata: {
            annotations: { "container.apparmor.security.beta.kubernetes.io/c": "runtime/default" },
          },
        },
      ),
    ).toBe("runtime/default");
  });
  it("rejects mismatched key types", () => {
    expect(error('lookup( `{"a": 1}`, `1` )')).toBe(
      "JMESPath function 'lookup': 2 argument is expected of String type",
    );
    expect(error('lookup( `["a"]`, `0.5` )')).toContain("expected an integer number");
    expect(error("lookup('abc', `1`)")).toContain("lookup()");
  });
});

describe("items", () => {
  it("turns maps and arrays into key/value objects", () => {
    expect(value("items(@, 'key', 'value')", { team: "apple", organization: "banana" })).toEqual([
      { key: "organization", value: "banana" },
      { key: "team", value: "apple" },
    ]);
    expect(value("items(@, 'key', 'value')", [{ team: "apple" }, { organization: "banana" }])).toEqual([
      { key: 0, value: { team: "apple" } },
      { key: 1, value: { organization: "banana" } },
    ]);
  });
  it("needs three arguments of the right types", () => {
    expect(error("items(@)", {})).toContain("Invalid arity");
    expect(error("items('x', 'k', 'v')")).toContain("items()");
  });
});

describe("object_from_lists", () => {
  it("zips keys and values into an object", () => {
    const pod = {
      spec: {
        containers: [
          {
            env: [
              { name: "KEY", value: "123-456-789" },
              { name: "endpoint", value: "licensing.corp.org" },
            ],
          },
        ],
      },
    };
    expect(
      value("object_from_lists(spec.containers[].env[].name, spec.containers[].env[].value)", pod),
    ).toEqual({
      KEY: "123-456-789",
      endpoint: "licensing.corp.org",
    });
    expect(value('object_from_lists(`["a", 2]`, `[1]`)')).toEqual({ a: 1, "2": null });
  });
  it("rejects non-arrays and non-scalar keys", () => {
    expect(error("object_from_lists('a', `[]`)")).toContain("object_from_lists()");
    expect(error("object_from_lists(`[[1]]`, `[1]`)")).toContain("StringArray");
  });
});

describe("hashes", () => {
  it("match the documented digests", () => {
    expect(value("md5('Alice & Bob')")).toBe("def42e1abd2462df1f9f0a4b3d488221");
    expect(value("sha1('Alice & Bob')")).toBe("e3ec484930685a61b0f824cd684a68699d2b98c1");
    expect(value("sha256('alertmanager-kube-prometheus-stack-alertmanager')")).toBe(
      "75c07bb807f2d80a85d34880b8af0c5f29f7c27577076ed5d0e4b427dee7dbcc",
    );
  });
  it("reject non-strings", () => {
    expect(error("md5(@)", { a: 1 })).toContain("md5()");
    expect(error("sha1(`1`)")).toContain("sha1()");
    expect(error("sha256(`null`)")).toContain("sha256()");
  });
});

describe("is_external_url", () => {
  it("classifies hosts", () => {
    expect(value("is_external_url('https://kyverno.io/docs')")).toBe(true);
    expect(value("is_external_url('http://8.8.8.8:53')")).toBe(true);
    expect(value("is_external_url('http://10.1.2.3')")).toBe(false);
    expect(value("is_external_url('http://127.0.0.1:8080')")).toBe(false);
    expect(value("is_external_url('http://[::1]/')")).toBe(false);
    expect(value("is_external_url('http://169.254.169.254/latest/meta-data')")).toBe(false);
    expect(value("is_external_url('http://my-svc.my-ns.svc.cluster.local')")).toBe(false);
    expect(value("is_external_url('http://localhost')")).toBe(false);
    expect(value("is_external_url('not a url')")).toBe(false);
  });
  it("rejects non-strings", () => {
    expect(error("is_external_url(`1`)")).toContain("is_external_url()");
  });
});

describe("semver_compare", () => {
  it("evaluates blang/semver ranges", () => {
    expect(value("semver_compare('1.2.3', '1.2.4')")).toBe(false);
    expect(value("semver_compare('1.2.3', '1.2.3')")).toBe(true);
    expect(value("semver_compare('4.1.3', '>=4.1.x')")).toBe(true);
    expect(value("semver_compare('4.1.3', '!4.x.x')")).toBe(false);
    expect(value("semver_compare('1.8.6', '>1.0.0 <2.0.0')")).toBe(true);
    expect(value("semver_compare('2.1.5', '<2.0.0 || >=3.0.0')")).toBe(false);
    expect(value("semver_compare('4.5.1', '>4.5.0')")).toBe(true);
    expect(value("semver_compare('1.0.0-alpha', '<1.0.0')")).toBe(true);
    expect(value("semver_compare('1.3.0', '1.x')")).toBe(true);
    expect(value("semver_compare('2.0.0', '1.x')")).toBe(false);
  });
  it("rejects invalid ranges", () => {
    expect(error("semver_compare('1.0.0', 'abc')")).toContain("semver_compare");
    expect(error("semver_compare('1.0.0', '|| 1.0.0')")).toContain("First element in range is '||'");
    expect(error("semver_compare('1.0.0', '>=01.0.0')")).toContain("leading zeroes");
  });
});

describe("image_normalize", () => {
  it("adds docker.io and latest", () => {
    expect(value("image_normalize('nginx')")).toBe("docker.io/nginx:latest");
    expect(value("image_normalize('library/nginx:1.25')")).toBe("docker.io/library/nginx:1.25");
    expect(value("image_normalize('ghcr.io/kyverno/kyverno')")).toBe("ghcr.io/kyverno/kyverno:latest");
    expect(value("image_normalize('localhost:5000/app:v1')")).toBe("localhost:5000/app:v1");
    const digest = `sha256:${"a".repeat(64)}`;
    expect(value(`image_normalize('nginx:1.0@${digest}')`)).toBe(`docker.io/nginx@${digest}`);
    expect(
      value("regex_replace_all('^docker.io/(.*)$', image_normalize('nginx'), 'harbor.corp.org/$1')"),
    ).toBe("harbor.corp.org/nginx:latest");
  });
  it("rejects invalid references", () => {
    expect(error("image_normalize('NGINX')")).toContain("repository name must be lowercase");
    expect(error("image_normalize('nginx:')")).toContain("invalid reference format");
    expect(error("image_normalize('nginx@sha256:abc')")).toContain("image_normalize");
  });
});
