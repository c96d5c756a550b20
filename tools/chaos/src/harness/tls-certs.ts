import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a throwaway certificate authority, a server certificate it signed, and an unrelated CA. */
export interface TestCertificates {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** A CA that did not sign the server certificate (a client trusting only it must fail). */
  wrongCaFile: string;
  /** Deletes the files. */
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Makes the certificates with the `openssl` CLI (server certificate valid for 127.0.0.1 and localhost). */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'dt-chaos-tls-'));
  const selfSignedCa = (name: string) =>
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`], dir);
  selfSignedCa('chaos-ca');
  selfSignedCa('wrong-ca');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'chaos-ca.pem', '-CAkey', 'chaos-ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext'],
    dir,
  );
  return {
    dir,
    caFile: join(dir, 'chaos-ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server.key'),
    wrongCaFile: join(dir, 'wrong-ca.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
