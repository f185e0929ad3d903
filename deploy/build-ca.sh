# Sourced by the Dockerfile's RUN steps that download over HTTPS (PyPI, the
# npm registry, the Go module proxy and its toolchains). Behind a proxy that inspects TLS the build must trust the
# proxy's CA; hand it in as a build secret, which is mounted for the step only
# and never lands in a layer:
#   docker build --secret id=build-ca,src=/path/to/ca-bundle.pem .
# (deploy/build-image.sh passes the host's trust store.) Without it nothing changes.
if [ -s /run/secrets/build-ca ]; then
  # Go reads SSL_CERT_FILE in place of the system's store: the secret is a whole trust store
  export PIP_CERT=/run/secrets/build-ca NODE_EXTRA_CA_CERTS=/run/secrets/build-ca SSL_CERT_FILE=/run/secrets/build-ca
fi
