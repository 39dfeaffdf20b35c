/**
 * The sandbox's long-lived secrets: the CA (`ca.crt`, `ca.key`), the service account signing key
 * (`sa.key`) and the configured users' tokens (`tokens.json`). With a data directory they are kept
 * there (0600), so kubeconfigs, `caBundle`s and issued tokens still work after a restart.
 */
import { join } from "node:path";
import { readStateFile, writeSecretFile } from "../store/state-files.js";
import { type CertificateAuthority, createCertificateAuthority } from "../tls/certificates.js";
import { createTokenSigner, type TokenSigner } from "./jwt.js";

/** The secrets a sandbox starts with. */
export interface Credentials {
  ca: CertificateAuthority;
  signer: TokenSigner;
  /** Tokens of users from the previous run, by username. */
  savedTokens: Record<string, string>;
  /** Keeps the users' tokens for the next run (no-op without a data directory). */
  saveTokens(tokens: Record<string, string>): void;
}

function parseTokens(text: string | undefined, path: string): Record<string, string> {
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("not an object");
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
  } catch (e) {
    throw new Error(
      `${path}: not a JSON object of tokens by username (${e instanceof Error ? e.message : String(e)})`,
    );
  }
}

/** Loads the secrets kept in `dataDir` (creating missing ones), or makes new ones without it. */
export async function loadCredentials(dataDir: string | undefined): Promise<Credentials> {
  if (dataDir === undefined) {
    return {
      ca: await createCertificateAuthority(),
      signer: createTokenSigner(),
      savedTokens: {},
      saveTokens: () => {},
    };
  }
  const paths = {
    cert: join(dataDir, "ca.crt"),
    key: join(dataDir, "ca.key"),
    signing: join(dataDir, "sa.key"),
    tokens: join(dataDir, "tokens.json"),
  };
  const certPem = readStateFile(paths.cert);
  const keyPem = readStateFile(paths.key);
  let ca: CertificateAuthority;
  if (certPem !== undefined && keyPem !== undefined) {
    try {
      ca = await createCertificateAuthority({ existing: { certPem, keyPem } });
    } catch (e) {
      throw new Error(
        `${paths.cert} / ${paths.key}: not a usable CA (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  } else {
    ca = await createCertificateAuthority();
    writeSecretFile(paths.key, ca.caKeyPem);
    writeSecretFile(paths.cert, ca.caCertPem);
  }
  const signingPem = readStateFile(paths.signing);
  let signer: TokenSigner;
  try {
    signer = createTokenSigner(signingPem);
  } catch (e) {
    throw new Error(
      `${paths.signing}: not a usable signing key (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  if (signingPem === undefined) writeSecretFile(paths.signing, signer.keyPem);
  return {
    ca,
    signer,
    savedTokens: parseTokens(readStateFile(paths.tokens), paths.tokens),
    saveTokens: (tokens) => writeSecretFile(paths.tokens, `${JSON.stringify(tokens, null, 2)}\n`),
  };
}
