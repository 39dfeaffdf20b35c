/** The parts of the Pod API the kubelet reads, typed (everything else is passed through untouched). */

/** `metadata` of any object. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  creationTimestamp?: string;
  generateName?: string;
}

/** An owner reference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `httpGet` / `tcpSocket` / `exec` handlers of probes and lifecycle hooks. */
export interface Handler {
  httpGet?: {
    path?: string;
    port: number | string;
    host?: string;
    scheme?: string;
    httpHeaders?: Array<{ name: string; value: string }>;
  };
  tcpSocket?: { port: number | string; host?: string };
  exec?: { command?: string[] };
  sleep?: { seconds: number };
}

/** A probe. */
export interface Probe extends Handler {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

/** One entry of `env`. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { resource: string; containerName?: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

/** One entry of `envFrom`. */
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

/** Security context fields the kubelet applies. */
export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  fsGroup?: number;
  supplementalGroups?: number[];
}

/** A container. */
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  ports?: Array<{ name?: string; containerPort: number; protocol?: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string; readOnly?: boolean }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: Handler; postStart?: Handler };
  securityContext?: SecurityContext;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}

/** Key-to-path items of secret / configMap volumes. */
export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

/** A volume. */
export interface Volume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string };
  secret?: { secretName: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: { name: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  projected?: {
    defaultMode?: number;
    sources: Array<{
      serviceAccountToken?: { path: string; expirationSeconds?: number; audience?: string };
      configMap?: { name: string; items?: KeyToPath[]; optional?: boolean };
      secret?: { name: string; items?: KeyToPath[]; optional?: boolean };
      downwardAPI?: { items?: Array<{ path: string; fieldRef?: { fieldPath: string } }> };
    }>;
  };
  [other: string]: unknown;
}

/** A Pod spec. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  restartPolicy?: "Always" | "OnFailure" | "Never";
  terminationGracePeriodSeconds?: number;
  nodeName?: string;
  hostNetwork?: boolean;
  securityContext?: SecurityContext;
}

/** A Pod. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

/** A Pod condition. */
export interface PodCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The state of a container in `containerStatuses`. */
export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        signal?: number;
        reason: string;
        startedAt?: string;
        finishedAt: string;
      };
    };

/** One entry of `containerStatuses`. */
export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: Partial<ContainerState> | Record<string, never>;
  containerID?: string;
}

/** A Pod's status. */
export interface PodStatus {
  phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  hostIP?: string;
  startTime?: string;
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  message?: string;
  reason?: string;
}
