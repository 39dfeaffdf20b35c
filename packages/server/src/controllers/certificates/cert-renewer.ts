/**
 * The leader's certificate duty, as upstream's cert renewer: a self-signed CA (365 days) and a serving
 * certificate it signs (150 days), kept in two Secrets and renewed 15 days before expiry. A renewed CA
 * is added in front of the old one in the CA Secret, so the `caBundle` trusts both while replicas
 * still serve the old pair; the webhook configurations get the new bundle before a pair signed by the
 * new CA is written.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { generateCertificateAuthority, issueServingCertificate } from "./certificates.js";
import {
  caProblem,
  pairProblem,
  readTlsSecret,
  splitPem,
  type TlsData,
  type TlsSecretNames,
  tlsSecret,
  validCertificates,
} from "./tls-secrets.js";

/** Old CAs kept in the bundle besides the current one (enough for any rotation in progress). */
const KEPT_OLD_CAS = 2;

/** Options of `createCertRenewer`. */
export interface CertRenewerOptions {
  client: KubeClient;
  namespace: string;
  names: TlsSecretNames;
  /** Host names and IPs of the serving certificate. */
  hosts: readonly string[];
  /** Wall-clock time (injected). */
  clock: Pick<ServerClock, "now">;
  logger: Logger;
  /** Puts the CA bundle now stored in the CA Secret into the webhook configurations; resolves when done. */
  publishCaBundle: (signal: AbortSignal) => Promise<void>;
}

/** What a reconcile renewed. */
export interface RenewOutcome {
  renewed: Array<"ca" | "pair">;
}

/** The leader's certificate reconciler; see `createCertRenewer`. */
export interface CertRenewer {
  /** Checks both Secrets and renews what needs it; throws when a read or write fails (retry later). */
  reconcile(signal: AbortSignal): Promise<RenewOutcome>;
}

async function read(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<KubeObject | undefined> {
  const got = await client.get({ apiVersion: "v1", kind: "Secret", namespace, name }, { signal });
  if (got.ok) return got.value;
  if (got.status === 404) return undefined;
  throw new Error(`reading Secret ${namespace}/${name}: ${got.message}`);
}

async function write(
  client: KubeClient,
  existing: KubeObject | undefined,
  secret: KubeObject,
  signal: AbortSignal,
): Promise<void> {
  const name = `${secret.metadata?.namespace}/${secret.metadata?.name}`;
  const written = existing
    ? await client.update(secret, { signal })
    : await client.create(secret, { signal });
  if (!written.ok) throw new Error(`writing Secret ${name}: ${written.message}`);
}

/** Creates the renewer; the caller runs `reconcile` at leadership start and every 12 hours. */
export function createCertRenewer(options: CertRenewerOptions): CertRenewer {
  const { client, namespace, names, hosts, clock, logger } = options;
  const now = (): Date => new Date(clock.now());

  const renewCa = async (existing: KubeObject | undefined, signal: AbortSignal): Promise<TlsData> => {
    const ca = await generateCertificateAuthority({ clock });
    const old = readTlsSecret(existing);
    const stillValid = validCertificates(old?.certPem ?? "", now()).slice(0, KEPT_OLD_CAS);
    const data = { certPem: [...splitPem(ca.certPem), ...stillValid].join(""), keyPem: ca.keyPem };
    await write(
      client,
      existing,
      tlsSecret(names.ca, namespace, data, existing?.metadata?.resourceVersion as string | undefined),
      signal,
    );
    return data;
  };

  return {
    async reconcile(signal) {
      const renewed: RenewOutcome["renewed"] = [];
      const caSecret = await read(client, namespace, names.ca, signal);
      let ca = readTlsSecret(caSecret);
      const caIssue = caProblem(ca, now());
      if (caIssue !== undefined) {
        logger.info({ secret: names.ca, reason: caIssue }, "generating a new CA");
        ca = await renewCa(caSecret, signal);
        renewed.push("ca");
        await options.publishCaBundle(signal);
      }
      const current = ca as TlsData;
      const pairSecret = await read(client, namespace, names.pair, signal);
      const pairIssue = pairProblem(readTlsSecret(pairSecret), current.certPem, hosts, now());
      if (pairIssue !== undefined) {
        logger.info({ secret: names.pair, reason: pairIssue }, "issuing a new serving certificate");
        const [caCertPem = ""] = splitPem(current.certPem);
        const pair = await issueServingCertificate({
          ca: { certPem: caCertPem, keyPem: current.keyPem },
          hosts,
          clock,
          commonName: hosts.find((h) => h.endsWith(".svc")) ?? hosts[0] ?? "localhost",
        });
        const data = { certPem: pair.certPem, keyPem: pair.keyPem };
        await write(
          client,
          pairSecret,
          tlsSecret(names.pair, namespace, data, pairSecret?.metadata?.resourceVersion as string | undefined),
          signal,
        );
        renewed.push("pair");
      }
      return { renewed };
    },
  };
}
