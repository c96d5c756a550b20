import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The PEM files `makeTestCertificates` writes. */
export interface TestCertificates {
  /** Server certificate for localhost / 127.0.0.1, signed by the CA. */
  certFile: string;
  /** Its private key. */
  keyFile: string;
  /** The CA that signed it. */
  caFile: string;
  /** A CA that signed nothing here, to check that a wrong CA is refused. */
  wrongCaFile: string;
}

/**
 * Writes into `into` a CA, a server certificate it signed for localhost / 127.0.0.1 and an
 * unrelated CA, made with the openssl command line (valid for two days), for `RedisServer.start({ tls })`.
 */
export async function makeTestCertificates(into: string): Promise<TestCertificates> {
  const file = (name: string) => join(into, name);
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', ['req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=durable-timeout test CA']);
  await run('openssl', ['req', '-x509', ...ecKey, '-keyout', file('wrong-ca.key'), '-out', file('wrong-ca.crt'), '-days', '2', '-subj', '/CN=unrelated CA']);
  await run('openssl', ['req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await run('openssl', [
    'x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('server.crt'), '-days', '2', '-extfile', file('server.ext'),
  ]);
  return { certFile: file('server.crt'), keyFile: file('server.key'), caFile: file('ca.crt'), wrongCaFile: file('wrong-ca.crt') };
}
