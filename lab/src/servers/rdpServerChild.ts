// How the lab starts an RDP server's process: ready once a TLS handshake on
// 127.0.0.1:port after X.224 negotiation succeeds (listening alone is not
// enough), and the certificate it presented kept for the tests to check.
import { startChild, type ChildSpec, type SupervisedChild } from '../process/childSupervisor.js';
import { customProbe } from '../process/readiness.js';
import { fetchRdpCertificate } from './rdpTlsCertificate.js';

/** Starts the server's process on `port` (its command line already names the port): the child and the certificate it presented. */
export async function startRdpServerChild(spec: Omit<ChildSpec, 'ready'>, port: number): Promise<{ child: SupervisedChild; certificateDer: Buffer | undefined }> {
  let certificateDer: Buffer | undefined;
  const child = await startChild({
    ...spec,
    ready: customProbe(`tls handshake on 127.0.0.1:${port} after x224 negotiation`, async () => {
      certificateDer = await fetchRdpCertificate('127.0.0.1', port, 2000);
      return true;
    }),
  });
  return { child, certificateDer };
}
