/**
 * `svc-hub tls issue <file> --name …`: a server certificate from the built-in CA for another server of the
 * deployment, e.g. the load balancer in front of several hub processes (decision 0041). Agents that pinned the
 * CA at enrollment trust it. Needs the hub's environment: the data directory (the CA certificate), the CA key
 * directory and the hub key that unseals the CA key.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HubConfig } from '../config/env.js';
import { encryptionKeyFile, loadSecretBox } from '../platform/secret-box.js';
import { CertificateProblem, describeCertificate } from '../platform/tls/certificates.js';
import { issueFromBuiltInCa } from '../platform/tls/tls-manager.js';

type IssueConfig = Pick<HubConfig, 'dataDir' | 'tlsCaKeyDir' | 'encryptionKey' | 'retiredEncryptionKeys'>;

export async function issueCertificate(
  config: IssueConfig,
  file: string,
  names: readonly string[],
): Promise<{ names: string[]; notAfter: string }> {
  const wanted = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (wanted.length === 0) throw new CertificateProblem('name at least one DNS name or address (--name)');
  if (fs.existsSync(file)) throw new CertificateProblem(`${file} exists: name a new file`);
  // No key yet means no CA sealed with one: say so instead of making a key here.
  if (!config.encryptionKey && !fs.existsSync(path.join(config.dataDir, encryptionKeyFile)))
    throw new CertificateProblem(`no hub key: set SVC_ENCRYPTION_KEY or SVC_DATA_DIR to the hub's`);
  const box = loadSecretBox({
    dataDir: config.dataDir,
    key: config.encryptionKey,
    retired: config.retiredEncryptionKeys,
  });
  const pair = await issueFromBuiltInCa({
    dataDir: config.dataDir,
    caKeyDir: config.tlsCaKeyDir,
    box,
    names: wanted,
    now: new Date(),
  });
  fs.writeFileSync(file, `${pair.certPem.trim()}\n${pair.keyPem.trim()}\n`, { mode: 0o600, flag: 'wx' });
  return { names: wanted, notAfter: describeCertificate(pair.certPem).not_after };
}
