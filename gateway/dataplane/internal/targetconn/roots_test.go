package targetconn

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// With certificates.caFile the chain must verify against that CA alone, as
// Node's tls `ca` option replaces its roots: a certificate from a CA the
// system trusts is not CA-verified then. Without it, the system's roots.
// Go loads the system's roots once per process, so the check runs in a
// child whose SSL_CERT_FILE names a "system" CA of the test's own.
func TestTheConfiguredCAAloneIsTrustedNotTheSystemRoots(t *testing.T) {
	if os.Getenv("TARGETCONN_ROOTS_CHILD") == "" {
		child := exec.Command(os.Args[0], "-test.run=^TestTheConfiguredCAAloneIsTrustedNotTheSystemRoots$", "-test.v")
		child.Env = append(os.Environ(), "TARGETCONN_ROOTS_CHILD=1")
		out, err := child.CombinedOutput()
		if err != nil {
			t.Fatalf("the child failed: %v\n%s", err, out)
		}
		return
	}
	system := newCA(t)
	dir := t.TempDir()
	bundle := filepath.Join(dir, "system.pem")
	if err := os.WriteFile(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: system.der}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", bundle)
	t.Setenv("SSL_CERT_DIR", dir)
	fromSystem := leafFor(t, system, "127.0.0.1")
	if ok, reason := verifyChain([]*x509.Certificate{fromSystem.cert, system.cert}, nil, "127.0.0.1"); !ok {
		t.Fatalf("without a configured CA the system's roots are trusted: %s", reason)
	}
	configured := newCA(t)
	roots := x509.NewCertPool()
	roots.AddCert(configured.cert)
	if ok, _ := verifyChain([]*x509.Certificate{fromSystem.cert, system.cert}, roots, "127.0.0.1"); ok {
		t.Fatal("with a configured CA, a system root was trusted too")
	}
	fromConfigured := leafFor(t, configured, "127.0.0.1")
	if ok, reason := verifyChain([]*x509.Certificate{fromConfigured.cert, configured.cert}, roots, "127.0.0.1"); !ok {
		t.Fatalf("the configured CA: %s", reason)
	}
}
