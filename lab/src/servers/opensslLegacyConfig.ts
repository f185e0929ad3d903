/**
 * An openssl.cnf that loads OpenSSL 3's legacy provider beside the default one:
 * NTLM (inside CredSSP/NLA) needs MD4, which OpenSSL 3 only has there. Point
 * OPENSSL_CONF at it for the server process only.
 */
export const OPENSSL_LEGACY_CONFIG = `# written by the lanterna lab: default + legacy providers (MD4 for NTLM)
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect

[provider_sect]
default = default_sect
legacy = legacy_sect

[default_sect]
activate = 1

[legacy_sect]
activate = 1
`;
