import { describe, expect, it } from "vitest";
import { extractImages, parseImage } from "./images.js";

describe("parseImage", () => {
  it("defaults registry and tag for Docker Hub short names", () => {
    expect(parseImage("nginx")).toMatchObject({
      registry: "docker.io",
      path: "nginx",
      name: "nginx",
      tag: "latest",
      digest: "",
      reference: "docker.io/nginx:latest",
    });
  });
  it("keeps a registry with a dot or port and splits path and name", () => {
    expect(parseImage("ghcr.io/org/team/app:1.2.3")).toMatchObject({
      registry: "ghcr.io",
      path: "org/team/app",
      name: "app",
      tag: "1.2.3",
    });
    expect(parseImage("localhost:5000/app")).toMatchObject({ registry: "localhost:5000", tag: "latest" });
  });
  it("treats a first component without a dot as a Docker Hub path", () => {
    expect(parseImage("library/busybox:1.36")).toMatchObject({
      registry: "docker.io",
      path: "library/busybox",
    });
  });
  it("keeps digests without inventing a tag", () => {
    const d = `sha256:${"a".repeat(64)}`;
    expect(parseImage(`nginx@${d}`)).toMatchObject({ tag: "", digest: d, reference: `docker.io/nginx@${d}` });
  });
  it("rejects strings that are not references", () => {
    expect(parseImage("")).toBeUndefined();
    expect(parseImage("Upper/Case")).toBeUndefined();
    expect(parseImage("a b")).toBeUndefined();
  });
});

describe("extractImages", () => {
  it("reads pods, controllers and cronjobs", () => {
    const pod = {
      kind: "Pod",
      spec: {
        containers: [{ name: "c", image: "nginx:1" }],
        initContainers: [{ name: "i", image: "busybox" }],
      },
    };
    expect(extractImages(pod)).toMatchObject({
      containers: { c: { tag: "1" } },
      initContainers: { i: { tag: "latest" } },
    });
    const deploy = {
      kind: "Deployment",
      spec: { template: { spec: { containers: [{ name: "c", image: "x.io/a:2" }] } } },
    };
    expect(extractImages(deploy)).toMatchObject({ containers: { c: { registry: "x.io" } } });
    const cron = {
      kind: "CronJob",
      spec: {
        jobTemplate: { spec: { template: { spec: { containers: [{ name: "j", image: "job:3" }] } } } },
      },
    };
    expect(extractImages(cron)).toMatchObject({ containers: { j: { tag: "3" } } });
    expect(extractImages({ kind: "ConfigMap", data: {} })).toBeUndefined();
  });
});
