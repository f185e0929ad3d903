/** How to reach an RDP server the lab started. */
export interface RdpEndpoint {
  host: '127.0.0.1';
  port: number;
  username: string;
  password: string;
  /** The certificate the server presents in its TLS handshake (DER). */
  certificateDer?: Buffer;
  /** The server's log file. */
  logPath: string;
}
