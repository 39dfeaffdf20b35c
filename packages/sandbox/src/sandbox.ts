/**
 * The composition root: credentials (CA, signing key, tokens), users, store (+ persistence), registry,
 * authorization (RBAC with the bootstrap roles), controllers and the HTTPS server.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createSecureServer } from "node:http2";
import { createServer, type Server } from "node:https";
import { type AddressInfo, isIPv6, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { parseAllDocuments } from "yaml";
import { createAdmissionChain, type ServiceResolver } from "./admission/index.js";
import type { AdmissionChain, WebhookSource } from "./admission/types.js";
import { createAuthenticator, DEFAULT_ADMIN, type SandboxUser } from "./auth/authenticator.js";
import { loadCredentials } from "./auth/credentials.js";
import { createServiceAccountTokens } from "./auth/service-account-tokens.js";
import { startTokenSecretController } from "./auth/token-secrets.js";
import { startGarbageCollector } from "./gc/garbage-collector.js";
import { startNamespaceController } from "./gc/namespace-controller.js";
import { startRootCaPublisher } from "./gc/root-ca-publisher.js";
import { startServiceAccountController } from "./gc/service-account-controller.js";
import { createWorkQueue } from "./gc/work-queue.js";
import { createHandler } from "./http/handler.js";
import { writeKubeconfig } from "./kubeconfig/kubeconfig.js";
import { asObject } from "./objects/meta.js";
import { startAggregationController } from "./rbac/aggregation.js";
import { createAlwaysAllowAuthorizer, createRbacAuthorizer } from "./rbac/authorizer.js";
import { bootstrapRbacObjects, userBindings } from "./rbac/bootstrap.js";
import { createEscalationGuard } from "./rbac/escalation.js";
import { syncCrds } from "./registry/crd-sync.js";
import { createRegistry } from "./registry/registry.js";
import { createPersistence, loadPersisted } from "./store/persistence.js";
import { secureDir } from "./store/state-files.js";
import { createStore } from "./store/store.js";
import type { ApiEnv } from "./verbs/context.js";
import { validateCrd } from "./verbs/crd-rules.js";
import { internalEnsure } from "./verbs/internal.js";
import type { PodLogSource } from "./verbs/pod-log.js";

/** Options of `startSandbox`. */
export interface SandboxOptions {
  /** CRDs to install at start: paths of YAML files (multi-document allowed) or CRD objects. */
  crds?: Array<string | JsonObject>;
  /**
   * Users besides the default `kubernetes-admin` (group `system:masters`); each gets a context in the
   * kubeconfig. Under RBAC they may do only what bindings grant: give them `clusterRoles` or create
   * RoleBindings / ClusterRoleBindings.
   */
  users?: SandboxUser[];
  /**
   * `RBAC` (default): every request is authorized as kube-apiserver's RBAC authorizer does (with the
   * bootstrap roles, `system:masters` allowed everything). `AlwaysAllow`: every authenticated user may
   * do everything (the sandbox's behaviour before RBAC).
   */
  authorization?: "RBAC" | "AlwaysAllow";
  /**
   * Directory to persist objects, the CA, the token signing key and the users' tokens in (and to write
   * the kubeconfig to), mode 0700 with 0600 files; state is in memory only without it.
   */
  dataDir?: string;
  /** Port to listen on (default 0: a free port). */
  port?: number;
  /**
   * Address to listen on (default `127.0.0.1`), e.g. a bridge address that Pods in network namespaces
   * reach; the serving certificate names it and `url` uses it.
   */
  listenHost?: string;
  /** More IP addresses or DNS names for the serving certificate (besides 127.0.0.1, localhost, ::1). */
  extraSans?: string[];
  /** The containers' output behind `pods/log` (`kubectl logs`), from whatever runs them (a test kubelet). */
  podLogs?: PodLogSource;
  /**
   * The admission chain, or a factory given read access to the stored webhook configurations.
   * Default: kube-apiserver's webhook admission (`createAdmissionChain`) over the stored
   * Mutating/ValidatingWebhookConfigurations; pass `false` to admit everything.
   */
  admission?: AdmissionChain | ((source: WebhookSource) => AdmissionChain) | false;
  /** Maps a webhook `service` reference to a base URL (no cluster DNS here), e.g. to 127.0.0.1:port. */
  resolveService?: ServiceResolver;
  /** Write events kept for watch resumption and paginated lists (default 10000); older versions get 410. */
  watchHistorySize?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60000 ms, as kube-apiserver). */
  bookmarkIntervalMs?: number;
  /**
   * Offer HTTP/2 as well as HTTP/1.1 (ALPN), as kube-apiserver does (default false: HTTP/1.1 only).
   * Over HTTP/2, `dropWatchConnections` ends the whole connection of each watch, with every request on it.
   */
  http2?: boolean;
}

/** A running sandbox. */
export interface Sandbox {
  /** `https://<listenHost>:<port>` (`https://127.0.0.1:<port>` by default). */
  url: string;
  /** The kubeconfig with one context per user (`kubernetes-admin` current). */
  kubeconfigPath: string;
  /** The CA that signed the serving certificate. */
  caCertPem: string;
  /** Bearer token of each user, by username. */
  users: Record<string, string>;
  /** Resolves once background work (garbage collection, namespace cleanup) has drained. */
  settled(): Promise<void>;
  /** Destroys the connections of every open watch (to test client reconnection). */
  dropWatchConnections(): void;
  /** Stops serving, ends watches and flushes persistence. */
  stop(): Promise<void>;
}

const BOOTSTRAP_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";

function loadCrds(sources: Array<string | JsonObject>): JsonObject[] {
  return sources.flatMap((source) => {
    if (typeof source !== "string") return [source];
    return parseAllDocuments(readFileSync(source, "utf8"))
      .map((d) => asObject(d.toJS() as JsonValue))
      .filter((o): o is JsonObject => o !== undefined && o.kind === "CustomResourceDefinition");
  });
}

/** The configured users (the admin first, overridable), each with its saved token when it has none. */
function usersOf(options: SandboxOptions, savedTokens: Record<string, string>) {
  const users = [
    DEFAULT_ADMIN,
    ...(options.users ?? []).filter((u) => u.username !== DEFAULT_ADMIN.username),
  ];
  const adminOverride = options.users?.find((u) => u.username === DEFAULT_ADMIN.username);
  if (adminOverride !== undefined) users[0] = adminOverride;
  const withTokens = users.map((u) => {
    const saved = savedTokens[u.username];
    return u.token === undefined && saved !== undefined ? { ...u, token: saved } : u;
  });
  return { users, withTokens };
}

/** The object store, loaded from and persisted to `dataDir` when there is one. */
function openStore(options: SandboxOptions, dataDir: string | undefined) {
  const persisted = dataDir === undefined ? undefined : loadPersisted(dataDir);
  let store: ReturnType<typeof createStore> | undefined;
  const persistence =
    dataDir === undefined ? undefined : createPersistence(dataDir, () => store as NonNullable<typeof store>);
  const storeOptions: Parameters<typeof createStore>[0] = { historySize: options.watchHistorySize ?? 10000 };
  if (persisted !== undefined) storeOptions.initial = { objects: persisted.objects, rv: persisted.rv };
  if (persistence !== undefined) storeOptions.onWrite = (e) => persistence.record(e);
  store = createStore(storeOptions);
  persistence?.compact(store.entries(), store.currentRv());
  return { store, persistence };
}

/** What the verbs share: the store, the registry, the admission chain over the stored webhooks, ids and time. */
function createEnv(options: SandboxOptions, store: ReturnType<typeof createStore>): ApiEnv {
  const webhooks: WebhookSource = {
    mutating: () => store.list("admissionregistration.k8s.io/mutatingwebhookconfigurations"),
    validating: () => store.list("admissionregistration.k8s.io/validatingwebhookconfigurations"),
  };
  const admission =
    options.admission === false
      ? undefined
      : typeof options.admission === "function"
        ? options.admission(webhooks)
        : (options.admission ??
          createAdmissionChain({
            webhooks,
            ...(options.resolveService ? { resolveService: options.resolveService } : {}),
          }));
  return {
    store,
    registry: createRegistry(),
    admission,
    now: () => new Date(),
    newUid: () => randomUUID(),
    nameSuffix: () =>
      Array.from(
        { length: 5 },
        () => SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)],
      ).join(""),
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60000,
    watches: new Set(),
    appliedConfigurations: new Map(),
  };
}

/** The bootstrap namespaces, the given CRDs, and the bootstrap RBAC with the users' bindings. */
function bootstrap(env: ApiEnv, options: SandboxOptions, users: ReturnType<typeof usersOf>["users"]): void {
  const { registry } = env;
  const crdResource = registry.byStorageKey(CRD_KEY);
  const nsResource = registry.byStorageKey("namespaces");
  for (const name of BOOTSTRAP_NAMESPACES)
    if (nsResource !== undefined)
      internalEnsure(env, nsResource, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  for (const crd of loadCrds(options.crds ?? [])) {
    validateCrd(crd);
    if (crdResource !== undefined) internalEnsure(env, crdResource, crd);
  }
  for (const object of [...bootstrapRbacObjects(), ...userBindings(users)]) {
    const resource = registry.byStorageKey(`rbac.authorization.k8s.io/${String(object.kind).toLowerCase()}s`);
    if (resource !== undefined) internalEnsure(env, resource, object);
  }
}

/** kube-controller-manager's controllers over one work queue; returns the function that stops them. */
function startControllers(
  env: ApiEnv,
  queue: ReturnType<typeof createWorkQueue>,
  tokens: ReturnType<typeof createServiceAccountTokens>,
  caCertPem: string,
): () => void {
  const stops = [
    startGarbageCollector(env, queue),
    startNamespaceController(env, queue),
    startServiceAccountController(env, queue),
    startRootCaPublisher(env, queue, caCertPem),
    startAggregationController(env, queue),
    startTokenSecretController(env, queue, tokens, caCertPem),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * Starts a local Kubernetes API server over HTTPS and writes a kubeconfig for it. For tests and for
 * trying policies with `kubectl`; see the package README for what is and is not covered.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const dataDir = options.dataDir;
  if (dataDir !== undefined) secureDir(dataDir);
  const credentials = await loadCredentials(dataDir);
  const ca = credentials.ca;
  const listenHost = options.listenHost ?? "127.0.0.1";
  const sans = [...new Set(["127.0.0.1", "localhost", "::1", listenHost, ...(options.extraSans ?? [])])];
  const serving = await ca.issue(sans);
  const { users, withTokens } = usersOf(options, credentials.savedTokens);
  const { store, persistence } = openStore(options, dataDir);
  const env = createEnv(options, store);

  const tokens = createServiceAccountTokens({
    signer: credentials.signer,
    store,
    now: env.now,
    newId: env.newUid,
  });
  const authenticator = createAuthenticator(withTokens, tokens);
  const rbac = options.authorization !== "AlwaysAllow";
  const authorizer = rbac ? createRbacAuthorizer(store) : createAlwaysAllowAuthorizer();
  if (rbac) {
    const guard = createEscalationGuard(authorizer, store);
    env.checkWrite = (request, object, old) =>
      guard(request.user, { group: request.resource.group, plural: request.resource.plural }, object, old);
  }

  const stopCrdSync = syncCrds(store, env.registry);
  bootstrap(env, options, users);
  const queue = createWorkQueue();
  const stopControllers = startControllers(env, queue, tokens, ca.caCertPem);

  let address = "127.0.0.1:0";
  const handler = createHandler({
    env,
    authenticator,
    authorizer,
    authorizeAnonymous: rbac,
    tokens,
    serverAddress: () => address,
    ...(options.podLogs === undefined ? {} : { podLogs: options.podLogs }),
  });
  const tls = { cert: serving.certPem, key: serving.keyPem };
  // HTTP/2's compatibility API hands the handler request and response objects of the same shape.
  const server =
    options.http2 === true
      ? createSecureServer({ ...tls, allowHTTP1: true }, (req, res) =>
          handler(req as unknown as IncomingMessage, res as unknown as ServerResponse),
        )
      : createServer(tls, handler);
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, listenHost, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${isIPv6(listenHost) ? `[${listenHost}]` : listenHost}:${port}`;
  const url = `https://${address}`;

  const ownDir = dataDir === undefined ? mkdtempSync(join(tmpdir(), "kyverno-ts-sandbox-")) : undefined;
  const configDir = dataDir ?? (ownDir as string);
  secureDir(configDir);
  const kubeconfigPath = join(configDir, "kubeconfig");
  writeKubeconfig(kubeconfigPath, { server: url, caCertPem: ca.caCertPem, users: authenticator.users() });
  credentials.saveTokens(Object.fromEntries(authenticator.users().map((u) => [u.user.username, u.token])));

  let stopped = false;
  return {
    url,
    kubeconfigPath,
    caCertPem: ca.caCertPem,
    users: Object.fromEntries(authenticator.users().map((u) => [u.user.username, u.token])),
    settled: () => queue.idle(),
    dropWatchConnections() {
      for (const watch of [...env.watches]) watch.destroy();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await queue.idle();
      queue.stop();
      stopControllers();
      stopCrdSync();
      for (const watch of [...env.watches]) watch.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ("closeAllConnections" in server) (server as Server).closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
      persistence?.compact(store.entries(), store.currentRv());
      if (ownDir !== undefined) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}
